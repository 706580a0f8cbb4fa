// ImageDecoder (devices/cpu/kernels/image_decoder.h): BMP and PNM images
// built here byte by byte, the pixel formats through the kernel, and bad
// data of every format: nothing known, damaged, truncated, and headers that
// claim more pixels than the data could hold. The ONNX node cases (ctest
// conformance.newer_opsets) check one valid image of each format against
// Pillow's decoding.
#include "devices/cpu/kernels/image_decoder.h"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_string;
using testing::make_tensor;
using testing::run_kernel;

void put32(std::vector<uint8_t>& v, size_t at, uint32_t x) {
  for (int i = 0; i < 4; ++i) v[at + i] = static_cast<uint8_t>(x >> (8 * i));
}

// A BMP with a 40-byte header: `bits` a pixel, `rows` as stored (bottom
// row first unless `top_down`), padded to 4 bytes, and `palette` (BGRX).
std::vector<uint8_t> bmp(int32_t width, int32_t height, uint16_t bits, const std::vector<std::vector<uint8_t>>& rows,
                         const std::vector<uint8_t>& palette = {}, bool top_down = false) {
  const size_t stride = (static_cast<size_t>(width) * bits + 31) / 32 * 4;
  const size_t offset = 54 + palette.size();
  std::vector<uint8_t> v(offset + stride * rows.size(), 0);
  v[0] = 'B';
  v[1] = 'M';
  put32(v, 2, static_cast<uint32_t>(v.size()));
  put32(v, 10, static_cast<uint32_t>(offset));
  put32(v, 14, 40);
  put32(v, 18, static_cast<uint32_t>(width));
  put32(v, 22, static_cast<uint32_t>(top_down ? -height : height));
  v[26] = 1;
  v[28] = static_cast<uint8_t>(bits);
  put32(v, 46, static_cast<uint32_t>(palette.size() / 4));
  std::copy(palette.begin(), palette.end(), v.begin() + 54);
  for (size_t r = 0; r < rows.size(); ++r) std::copy(rows[r].begin(), rows[r].end(), v.begin() + offset + r * stride);
  return v;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

std::vector<uint8_t> pixels(const image::RgbImage& im) {
  return {im.pixels.get(), im.pixels.get() + im.height * im.width * 3};
}

TEST(ImageDecoder, Bmp_24And32Bits_BottomUpAndTopDown) {
  // 2x2: top row red, green; bottom row blue, white. Stored bottom-up.
  const auto b24 = bmp(2, 2, 24, {{255, 0, 0, 255, 255, 255}, {0, 0, 255, 0, 255, 0}});
  auto im = image::decode_rgb(b24.data(), b24.size());
  ASSERT_TRUE(im.ok()) << im.status().to_string();
  EXPECT_EQ(im->height, 2);
  EXPECT_EQ(im->width, 2);
  EXPECT_EQ(pixels(*im), (std::vector<uint8_t>{255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255}));
  const auto b32 = bmp(2, 2, 32, {{0, 0, 255, 9, 0, 255, 0, 9}, {255, 0, 0, 9, 255, 255, 255, 9}}, {}, true);
  auto top = image::decode_rgb(b32.data(), b32.size());
  ASSERT_TRUE(top.ok()) << top.status().to_string();
  EXPECT_EQ(pixels(*top), pixels(*im));
}

TEST(ImageDecoder, Bmp_PalettesOf1And8Bits) {
  const std::vector<uint8_t> palette = {0, 0, 0, 0, 10, 20, 30, 0, 255, 255, 255, 0};
  // 8 bits: indices 2, 1, 0 in one row (padded to 4 bytes).
  const auto b8 = bmp(3, 1, 8, {{2, 1, 0}}, palette);
  auto im = image::decode_rgb(b8.data(), b8.size());
  ASSERT_TRUE(im.ok()) << im.status().to_string();
  EXPECT_EQ(pixels(*im), (std::vector<uint8_t>{255, 255, 255, 30, 20, 10, 0, 0, 0}));
  // 1 bit: 1, 0, 1 from the top bit down, the first two colours.
  const auto b1 = bmp(3, 1, 1, {{0b10100000}}, {0, 0, 0, 0, 10, 20, 30, 0});
  auto one = image::decode_rgb(b1.data(), b1.size());
  ASSERT_TRUE(one.ok()) << one.status().to_string();
  EXPECT_EQ(pixels(*one), (std::vector<uint8_t>{30, 20, 10, 0, 0, 0, 30, 20, 10}));
  // An index past the palette.
  const auto bad = bmp(3, 1, 8, {{2, 3, 0}}, palette);
  auto r = image::decode_rgb(bad.data(), bad.size());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("colour 3 of 3"), std::string::npos) << r.status().message();
}

TEST(ImageDecoder, Pnm_BinaryPixmapAndGreymap) {
  const auto p6 = bytes("P6\n# a comment\n2 1\n255\n\x01\x02\x03\xfa\xfb\xfc");
  auto im = image::decode_rgb(p6.data(), p6.size());
  ASSERT_TRUE(im.ok()) << im.status().to_string();
  EXPECT_EQ(pixels(*im), (std::vector<uint8_t>{1, 2, 3, 250, 251, 252}));
  // 16 levels scaled to 255, grey to three channels.
  const auto p5 = bytes(std::string("P5 2 1 15 ") + '\x00' + '\x0f');
  auto grey = image::decode_rgb(p5.data(), p5.size());
  ASSERT_TRUE(grey.ok()) << grey.status().to_string();
  EXPECT_EQ(pixels(*grey), (std::vector<uint8_t>{0, 0, 0, 255, 255, 255}));
}

// RGB as decoded, BGR reversed, Grayscale as Pillow's convert("L").
TEST(ImageDecoder, Kernel_PixelFormats) {
  const auto b24 = bmp(2, 1, 24, {{255, 0, 0, 40, 160, 250}});  // blue, then RGB (250, 160, 40)
  const Tensor x = make_tensor<uint8_t>({static_cast<int64_t>(b24.size())}, b24);
  auto rgb = run_kernel("ImageDecoder", {RuntimeValue(x)}, 1, {}, 20);
  ASSERT_TRUE(rgb.status.ok()) << rgb.status.to_string();
  EXPECT_EQ(rgb.outputs[0].tensor().dims(), (Dims{1, 2, 3}));
  EXPECT_EQ(testing::to_vector<uint8_t>(rgb.outputs[0].tensor()), (std::vector<uint8_t>{0, 0, 255, 250, 160, 40}));
  auto bgr = run_kernel("ImageDecoder", {RuntimeValue(x)}, 1, {attr_string("pixel_format", "BGR")}, 20);
  ASSERT_TRUE(bgr.status.ok()) << bgr.status.to_string();
  EXPECT_EQ(testing::to_vector<uint8_t>(bgr.outputs[0].tensor()), (std::vector<uint8_t>{255, 0, 0, 40, 160, 250}));
  auto grey = run_kernel("ImageDecoder", {RuntimeValue(x)}, 1, {attr_string("pixel_format", "Grayscale")}, 20);
  ASSERT_TRUE(grey.status.ok()) << grey.status.to_string();
  EXPECT_EQ(grey.outputs[0].tensor().dims(), (Dims{1, 2, 1}));
  // (7471 * 255 + 2^15) >> 16 = 29; (19595 * 250 + 38470 * 160 + 7471 * 40 + 2^15) >> 16 = 173.
  EXPECT_EQ(testing::to_vector<uint8_t>(grey.outputs[0].tensor()), (std::vector<uint8_t>{29, 173}));
  auto bad = run_kernel("ImageDecoder", {RuntimeValue(x)}, 1, {attr_string("pixel_format", "RGBA")}, 20);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  const Tensor two_d = make_tensor<uint8_t>({1, static_cast<int64_t>(b24.size())}, b24);
  auto flat = run_kernel("ImageDecoder", {RuntimeValue(two_d)}, 1, {}, 20);
  EXPECT_EQ(flat.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(flat.status.message().find("1-D uint8"), std::string::npos) << flat.status.message();
}

// An alpha channel is dropped, a PNG's composited onto black: a
// transparent pixel comes out black whatever its colour.
TEST(ImageDecoder, PngAlpha_IsCompositedOntoBlack) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = 3;
  png.height = 1;
  png.format = PNG_FORMAT_RGBA;
  const uint8_t rgba[] = {255, 0, 0, 255, 0, 255, 0, 0, 200, 100, 50, 255};
  png_alloc_size_t size = 0;
  ASSERT_TRUE(png_image_write_get_memory_size(png, size, 0, rgba, 0, nullptr)) << png.message;
  std::vector<uint8_t> encoded(size);
  ASSERT_TRUE(png_image_write_to_memory(&png, encoded.data(), &size, 0, rgba, 0, nullptr)) << png.message;
  encoded.resize(size);
  auto im = image::decode_rgb(encoded.data(), encoded.size());
  ASSERT_TRUE(im.ok()) << im.status().to_string();
  EXPECT_EQ(pixels(*im), (std::vector<uint8_t>{255, 0, 0, 0, 0, 0, 200, 100, 50}));
}

struct Bad {
  const char* what;
  std::vector<uint8_t> data;
  const char* says;
};

void expect_refused(const Bad& b) {
  auto r = image::decode_rgb(b.data.data(), b.data.size());
  ASSERT_FALSE(r.ok()) << b.what;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << b.what << ": " << r.status().to_string();
  EXPECT_NE(r.status().message().find(b.says), std::string::npos) << b.what << ": " << r.status().message();
}

TEST(ImageDecoder, BadData_IsRefusedWithTheReason) {
  auto huge_bmp = bmp(2, 2, 24, {{0}, {0}});
  put32(huge_bmp, 18, 1u << 30);
  put32(huge_bmp, 22, 1u << 30);
  auto rle = bmp(2, 2, 8, {{0}, {0}}, {0, 0, 0, 0});
  put32(rle, 30, 1);
  auto big_header = bmp(1, 1, 24, {{0, 0, 0}});
  put32(big_header, 14, 0xFFFFFFFFu);
  auto os2 = bmp(1, 1, 24, {{0, 0, 0}});
  put32(os2, 14, 12);
  const Bad cases[] = {
      {"empty", {}, "none of the formats"},
      {"unknown", bytes("GIF89a...."), "starting 47 49 46 38"},
      {"a BMP's rows missing",
       [] {
         auto v = bmp(4, 4, 24, {{0}, {0}, {0}, {0}});
         v.resize(v.size() - 8);
         return v;
       }(),
       "too few for its 4x4 pixels"},
      {"a BMP claiming 2^30 x 2^30 pixels", huge_bmp, "too few for"},
      {"run-length BMP", rle, "compressed BMP"},
      {"a BMP cut inside its header", bytes("BM\x10\x00"), "ends inside its headers"},
      {"a BMP header claiming 2^32 - 1 bytes", big_header, "ends inside its 4294967295-byte header"},
      {"an OS/2 BMP header", os2, "12-byte header is not supported"},
      {"ASCII PNM", bytes("P3\n1 1\n255\n1 2 3\n"), "type P3 is not supported"},
      {"PNM claiming 100000 x 100000 pixels", bytes("P6\n100000 100000\n255\n\x01\x02\x03"), "too few for"},
      {"16-bit PNM", bytes("P6\n1 1\n65535\n\x01\x02\x03\x04\x05\x06"), "maxval 65535"},
      {"PNM header cut short", bytes("P6\n12"), "malformed"},
  };
  for (const Bad& b : cases) expect_refused(b);
}

// The encoded image of one of ONNX's ImageDecoder node cases.
std::vector<uint8_t> node_case_image(const std::string& format) {
  const std::string path = std::string(SY_BINARY_DIR) +
                           "/onnx-node-newer/onnx-node-opset18-23/test_image_decoder_decode_" + format +
                           "_rgb/test_data_set_0/input_0.pb";
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  onnx::TensorProto t;
  if (!in || !t.ParseFromString(s.str())) return {};
  return {t.raw_data().begin(), t.raw_data().end()};
}

// The formats the libraries read, damaged three ways: cut in half, the
// bytes past the first 16 inverted, and (JPEG, JPEG 2000) the header's
// dimensions raised to 30000 x 30000 with the data left as it is, which the
// size check refuses before anything that size is made.
TEST(ImageDecoder, LibraryFormats_DamagedData_IsRefused) {
  for (const char* format : {"jpeg", "png", "tiff", "webp", "jpeg2k"}) {
    SCOPED_TRACE(format);
    const std::vector<uint8_t> good = node_case_image(format);
    if (good.empty()) GTEST_SKIP() << "the opset 18-23 node cases are not unpacked in " << SY_BINARY_DIR;
    auto ok = image::decode_rgb(good.data(), good.size());
    ASSERT_TRUE(ok.ok()) << ok.status().to_string();
    EXPECT_EQ(ok->height, 32);
    EXPECT_EQ(ok->width, 32);
    std::vector<uint8_t> half(good.begin(), good.begin() + good.size() / 2);
    auto cut = image::decode_rgb(half.data(), half.size());
    EXPECT_EQ(cut.status().code(), StatusCode::kInvalidArgument) << cut.status().to_string();
    std::vector<uint8_t> flipped = good;
    for (size_t i = 16; i < flipped.size(); ++i) flipped[i] = static_cast<uint8_t>(~flipped[i]);
    auto damaged = image::decode_rgb(flipped.data(), flipped.size());
    EXPECT_EQ(damaged.status().code(), StatusCode::kInvalidArgument) << damaged.status().to_string();
    // A start-of-frame (JPEG) or image-size (JPEG 2000) marker, and where
    // its big-endian height and width lie.
    const std::vector<uint8_t> marker =
        std::string(format) == "jpeg" ? std::vector<uint8_t>{0xFF, 0xC0} : std::vector<uint8_t>{0xFF, 0x51};
    auto at = std::search(good.begin(), good.end(), marker.begin(), marker.end());
    if (std::string(format) != "jpeg" && std::string(format) != "jpeg2k") continue;
    ASSERT_NE(at, good.end());
    std::vector<uint8_t> claims = good;
    const size_t m = static_cast<size_t>(at - good.begin());
    if (std::string(format) == "jpeg") {  // FFC0, length, precision, height (2), width (2)
      for (size_t k : {m + 5, m + 7}) claims[k] = 0x75, claims[k + 1] = 0x30;
    } else {  // FF51, Lsiz, Rsiz, Xsiz, Ysiz, XOsiz, YOsiz, XTsiz, YTsiz (4 bytes each from Xsiz): the image and
              // its one tile; and the JP2 header box's height and width, which must agree
      const std::string ihdr = "ihdr";
      const size_t h =
          static_cast<size_t>(std::search(good.begin(), good.end(), ihdr.begin(), ihdr.end()) - good.begin());
      ASSERT_LT(h, good.size());
      for (size_t k : {m + 6, m + 10, m + 22, m + 26, h + 4, h + 8})
        claims[k] = 0, claims[k + 1] = 0, claims[k + 2] = 0x75, claims[k + 3] = 0x30;
    }
    auto big = image::decode_rgb(claims.data(), claims.size());
    EXPECT_EQ(big.status().code(), StatusCode::kInvalidArgument) << big.status().to_string();
    EXPECT_NE(big.status().message().find("claims a 30000x30000 image"), std::string::npos) << big.status().message();
  }
}

}  // namespace
}  // namespace sy
