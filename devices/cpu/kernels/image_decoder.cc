// ImageDecoder (opset 20) on the CPU, and the decoders behind it.
//
// Each library reads from memory and reports failures through its own
// channel, which is turned into a Status here and never printed: libjpeg's
// error_exit (a longjmp out of the library), libpng's simplified API (it
// catches its own longjmp), libtiff's per-handle error handler, OpenJPEG's
// per-codec message callback and libwebp's null result. Before any buffer
// of the image's size is made, its size is checked against the host
// allocator's limit for one tensor (check_host_table_bytes), since the
// dimensions come from the data: a few bytes may claim a gigapixel.
//
// The output follows the ONNX reference (onnx/reference/ops/
// op_image_decoder.py), which decodes with Pillow: RGB as decoded, BGR its
// channels reversed, Grayscale Pillow's convert("L") of the RGB image,
// (19595 R + 38470 G + 7471 B + 2^15) >> 16.
#include "devices/cpu/kernels/image_decoder.h"

#include <jerror.h>
#include <jpeglib.h>  // before jerror.h, which needs its types
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>
#include <webp/decode.h>

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "devices/cpu/cpu_kernels.h"
#include "devices/host_allocator.h"
#include "devices/kernel.h"

namespace sy {
namespace image {
namespace {

bool starts_with(const uint8_t* data, size_t size, std::initializer_list<uint8_t> magic) {
  return size >= magic.size() && std::equal(magic.begin(), magic.end(), data);
}

// Decoded images past kFreeBytes may be at most kMaxRatio times their
// data's size. The dimensions come from a header, and a damaged or hostile
// one claims what no data backs: a 2 KB JPEG 2000 file claiming 30000 x
// 30000 pixels decodes, leniently, into 2.7 GB of zeros. No PNG gives
// more than about 24,800 bytes of RGB a byte (deflate's 1032:1 on 1-bit
// pixels), nor a JPEG with Huffman coding more than about 1,000; WebP
// and JPEG 2000 images of one flat colour can, and past 64 MB they are
// refused with the reason.
constexpr double kFreeBytes = 64 << 20;
constexpr double kMaxRatio = 32768;

// The image's pixel buffer, once its dimensions are known and allowed.
// `encoded` is the size of the data they came from.
Status allocate(RgbImage& image, int64_t height, int64_t width, const char* format, size_t encoded) {
  if (height <= 0 || width <= 0)
    return InvalidArgument("ImageDecoder: the ", format, " data claims a ", width, "x", height, " image");
  const double bytes = static_cast<double>(height) * static_cast<double>(width) * 3;
  if (bytes > kFreeBytes && bytes > kMaxRatio * static_cast<double>(encoded))
    return InvalidArgument("ImageDecoder: the ", format, " data (", encoded, " bytes) claims a ", width, "x", height,
                           " image, more than ", static_cast<int64_t>(kMaxRatio),
                           " bytes of pixels a byte of data: a damaged header, or an image too flat to be taken");
  RETURN_IF_ERROR(check_host_table_bytes(bytes, std::string("ImageDecoder: a ") + std::to_string(width) + "x" +
                                                    std::to_string(height) + " " + format + " image"));
  image.height = height;
  image.width = width;
  image.pixels.reset(new uint8_t[static_cast<size_t>(height * width * 3)]);  // not zeroed: every byte is written
  return OkStatus();
}

// ---- BMP: uncompressed, 1, 4, 8 (with a palette), 24 or 32 bits a pixel ----

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

Status decode_bmp(const uint8_t* d, size_t size, RgbImage& image) {
  if (size < 26) return InvalidArgument("ImageDecoder: the BMP data ends inside its headers (", size, " bytes)");
  const uint32_t offset = le32(d + 10), header = le32(d + 14);
  if (header < 40)
    return InvalidArgument("ImageDecoder: BMP with a ", header,
                           "-byte header is not supported (only Windows 3 and later)");
  if (size < 14 + static_cast<size_t>(header))
    return InvalidArgument("ImageDecoder: the BMP data ends inside its ", header, "-byte header (", size, " bytes)");
  const int64_t width = static_cast<int32_t>(le32(d + 18));
  const int64_t signed_height = static_cast<int32_t>(le32(d + 22));
  const uint16_t bits = le16(d + 28);
  const uint32_t compression = le32(d + 30);
  // BI_RGB, or BI_BITFIELDS for 32 bits with the usual masks (read as BGRX).
  if (compression != 0 && !(compression == 3 && bits == 32))
    return InvalidArgument("ImageDecoder: compressed BMP (compression ", compression, ") is not supported");
  if (bits != 1 && bits != 4 && bits != 8 && bits != 24 && bits != 32)
    return InvalidArgument("ImageDecoder: BMP with ", bits, " bits a pixel is not supported");
  const int64_t height = signed_height < 0 ? -signed_height : signed_height;
  if (width <= 0 || height <= 0)
    return InvalidArgument("ImageDecoder: the BMP data claims a ", width, "x", signed_height, " image");
  // Rows are padded to 4 bytes; they must all lie in the data.
  const int64_t stride = (width * bits + 31) / 32 * 4;
  if (offset > size || static_cast<double>(stride) * static_cast<double>(height) > static_cast<double>(size - offset))
    return InvalidArgument("ImageDecoder: the BMP data holds ", size, " bytes, too few for its ", width, "x", height,
                           " pixels of ", bits, " bits from byte ", offset);
  const uint8_t* palette = d + 14 + header;
  uint32_t colors = 0;
  if (bits <= 8) {
    colors = le32(d + 46);
    if (colors == 0 || colors > (1u << bits)) colors = 1u << bits;
    if (14 + static_cast<size_t>(header) + 4 * static_cast<size_t>(colors) > offset)
      return InvalidArgument("ImageDecoder: the BMP palette of ", colors, " colours overlaps the pixels");
  }
  RETURN_IF_ERROR(allocate(image, height, width, "BMP", size));
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = d + offset + stride * (signed_height < 0 ? y : height - 1 - y);  // bottom-up unless negative
    uint8_t* out = image.pixels.get() + y * width * 3;
    for (int64_t x = 0; x < width; ++x, out += 3) {
      const uint8_t* bgr;
      if (bits >= 24) {
        bgr = row + x * (bits / 8);
      } else {
        const int64_t bit = x * bits;
        const uint32_t index = (row[bit / 8] >> (8 - bits - bit % 8)) & ((1u << bits) - 1);
        if (index >= colors) return InvalidArgument("ImageDecoder: a BMP pixel names colour ", index, " of ", colors);
        bgr = palette + 4 * index;
      }
      out[0] = bgr[2];
      out[1] = bgr[1];
      out[2] = bgr[0];
    }
  }
  return OkStatus();
}

// ---- PNM: binary greymap (P5) and pixmap (P6), up to 255 levels ----

Status decode_pnm(const uint8_t* d, size_t size, RgbImage& image) {
  const char kind = static_cast<char>(d[1]);
  if (kind != '5' && kind != '6')
    return InvalidArgument("ImageDecoder: PNM type P", std::string(1, kind),
                           " is not supported (only binary P5 and P6)");
  size_t at = 2;
  // Width, height and maxval: decimal, after whitespace and # comments.
  int64_t fields[3];
  for (int64_t& f : fields) {
    while (at < size && (std::isspace(d[at]) || d[at] == '#')) {
      if (d[at] == '#')
        while (at < size && d[at] != '\n') ++at;
      else
        ++at;
    }
    if (at >= size || !std::isdigit(d[at])) return InvalidArgument("ImageDecoder: the PNM header is malformed");
    f = 0;
    while (at < size && std::isdigit(d[at])) {
      f = f * 10 + (d[at++] - '0');
      if (f > (int64_t{1} << 40)) return InvalidArgument("ImageDecoder: a PNM header number is out of range");
    }
  }
  if (at >= size || !std::isspace(d[at])) return InvalidArgument("ImageDecoder: the PNM header is malformed");
  ++at;  // the one whitespace before the samples
  const int64_t width = fields[0], height = fields[1], maxval = fields[2];
  if (maxval < 1 || maxval > 255)
    return InvalidArgument("ImageDecoder: PNM with maxval ", maxval, " is not supported (1 to 255)");
  const int64_t channels = kind == '6' ? 3 : 1;
  if (width <= 0 || height <= 0)
    return InvalidArgument("ImageDecoder: the PNM data claims a ", width, "x", height, " image");
  if (static_cast<double>(width) * static_cast<double>(height) * channels > static_cast<double>(size - at))
    return InvalidArgument("ImageDecoder: the PNM data holds ", size - at, " bytes of samples, too few for ", width,
                           "x", height, " pixels");
  RETURN_IF_ERROR(allocate(image, height, width, "PNM", size));
  const uint8_t* in = d + at;
  uint8_t* out = image.pixels.get();
  for (int64_t i = 0; i < width * height; ++i, in += channels, out += 3)
    for (int c = 0; c < 3; ++c) {
      const int64_t v = in[channels == 3 ? c : 0];
      out[c] = static_cast<uint8_t>(maxval == 255 ? v : (std::min(v, maxval) * 255 + maxval / 2) / maxval);
    }
  return OkStatus();
}

// ---- JPEG (libjpeg-turbo) ----

struct JpegError {
  jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegError*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

// Nothing with a destructor is made between setjmp and the last call that
// may jump, so the jump skips none.
Status decode_jpeg(const uint8_t* d, size_t size, RgbImage& image) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_fail;
  // Warnings (a corrupt but readable stream) stay quiet, but data that
  // ends early is an error: libjpeg would fill the rest of the image in
  // grey, however large the header said it was.
  err.mgr.emit_message = [](j_common_ptr c, int level) {
    if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF) jpeg_fail(c);
  };
  Status allocated;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return InvalidArgument("ImageDecoder: JPEG: ", err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, d, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;
  allocated = allocate(image, cinfo.image_height, cinfo.image_width, "JPEG", size);
  if (!allocated.ok()) {
    jpeg_destroy_decompress(&cinfo);
    return allocated;
  }
  jpeg_start_decompress(&cinfo);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = image.pixels.get() + static_cast<size_t>(cinfo.output_scanline) * image.width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return OkStatus();
}

// ---- PNG (libpng's simplified API) ----

Status decode_png(const uint8_t* d, size_t size, RgbImage& image) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, d, size)) return InvalidArgument("ImageDecoder: PNG: ", png.message);
  png.format = PNG_FORMAT_RGB;
  if (Status st = allocate(image, png.height, png.width, "PNG", size); !st.ok()) {
    png_image_free(&png);
    return st;
  }
  // Alpha is composited onto this (with none given, onto what the buffer
  // held, which is not set here).
  const png_color black{0, 0, 0};
  if (!png_image_finish_read(&png, &black, image.pixels.get(), 0, nullptr)) {
    png_image_free(&png);
    return InvalidArgument("ImageDecoder: PNG: ", png.message);
  }
  return OkStatus();
}

// ---- TIFF (libtiff), the first image of the file ----

// The encoded data as a stream, for libtiff's and OpenJPEG's callbacks.
struct Memory {
  const uint8_t* data;
  uint64_t size, pos = 0;
  // Up to n bytes from pos into buf, moving past them; how many.
  uint64_t read(void* buf, uint64_t n) {
    const uint64_t k = std::min(n, size - pos);
    std::memcpy(buf, data + pos, k);
    pos += k;
    return k;
  }
};

int tiff_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* message = static_cast<std::string*>(user);
  if (message->empty()) {
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    *message = std::string(module ? module : "") + (module ? ": " : "") + buf;
  }
  return 1;  // handled: nothing printed
}

Status decode_tiff(const uint8_t* d, size_t size, RgbImage& image) {
  Memory mem{d, size};
  std::string message;
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, tiff_error, &message);
  TIFFOpenOptionsSetWarningHandlerExtR(
      options, [](TIFF*, void*, const char*, const char*, va_list) { return 1; }, nullptr);
  // libtiff's own buffers (strips, tiles) within what one tensor may take.
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, static_cast<tmsize_t>(HostAllocator::host().capacity()));
  TIFF* tif = TIFFClientOpenExt(
      "ImageDecoder", "rm", &mem,
      [](thandle_t h, void* buf, tmsize_t n) -> tmsize_t {
        return static_cast<tmsize_t>(static_cast<Memory*>(h)->read(buf, static_cast<uint64_t>(n)));
      },
      [](thandle_t, void*, tmsize_t) -> tmsize_t { return -1; },
      [](thandle_t h, toff_t off, int whence) -> toff_t {
        auto* m = static_cast<Memory*>(h);
        const uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos : m->size;
        if (off > m->size || base + off > m->size) return static_cast<toff_t>(-1);
        return m->pos = base + off;
      },
      [](thandle_t) { return 0; }, [](thandle_t h) -> toff_t { return static_cast<Memory*>(h)->size; },
      [](thandle_t, void**, toff_t*) { return 0; }, [](thandle_t, void*, toff_t) {}, options);
  TIFFOpenOptionsFree(options);
  if (!tif) return InvalidArgument("ImageDecoder: TIFF: ", message.empty() ? "not readable" : message);
  uint32_t width = 0, height = 0;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
  // libtiff gives RGBA words; they are made only once the RGB image may be.
  Status st = allocate(image, height, width, "TIFF", size);
  if (st.ok()) st = check_host_table_bytes(static_cast<double>(width) * height * 4, "ImageDecoder: TIFF's RGBA words");
  if (!st.ok()) {
    TIFFClose(tif);
    return st;
  }
  std::unique_ptr<uint32_t[]> rgba(new uint32_t[static_cast<size_t>(width) * height]);
  const int ok = TIFFReadRGBAImageOriented(tif, width, height, rgba.get(), ORIENTATION_TOPLEFT, /*stop_on_error=*/1);
  TIFFClose(tif);
  if (!ok) return InvalidArgument("ImageDecoder: TIFF: ", message.empty() ? "the image is not readable" : message);
  uint8_t* out = image.pixels.get();
  for (size_t i = 0; i < static_cast<size_t>(width) * height; ++i, out += 3) {
    out[0] = static_cast<uint8_t>(TIFFGetR(rgba[i]));
    out[1] = static_cast<uint8_t>(TIFFGetG(rgba[i]));
    out[2] = static_cast<uint8_t>(TIFFGetB(rgba[i]));
  }
  return OkStatus();
}

// ---- WebP (libwebp) ----

Status decode_webp(const uint8_t* d, size_t size, RgbImage& image) {
  int width = 0, height = 0;
  if (!WebPGetInfo(d, size, &width, &height)) return InvalidArgument("ImageDecoder: WebP: the header is not readable");
  RETURN_IF_ERROR(allocate(image, height, width, "WebP", size));
  const size_t bytes = static_cast<size_t>(width) * height * 3;
  if (!WebPDecodeRGBInto(d, size, image.pixels.get(), bytes, width * 3))
    return InvalidArgument("ImageDecoder: WebP: the image is damaged or truncated");
  return OkStatus();
}

// ---- JPEG 2000 (OpenJPEG): a JP2 file or a bare codestream ----

Status decode_jpeg2000(const uint8_t* d, size_t size, RgbImage& image, bool jp2) {
  Memory mem{d, size};
  std::string message;
  opj_stream_t* stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  opj_stream_set_user_data(stream, &mem, nullptr);
  opj_stream_set_user_data_length(stream, size);
  opj_stream_set_read_function(stream, [](void* buf, OPJ_SIZE_T n, void* user) -> OPJ_SIZE_T {
    auto* m = static_cast<Memory*>(user);
    if (m->pos >= m->size) return static_cast<OPJ_SIZE_T>(-1);  // the end, as OpenJPEG expects it
    return static_cast<OPJ_SIZE_T>(m->read(buf, n));
  });
  opj_stream_set_skip_function(stream, [](OPJ_OFF_T n, void* user) -> OPJ_OFF_T {
    auto* m = static_cast<Memory*>(user);
    const int64_t to = std::clamp<int64_t>(static_cast<int64_t>(m->pos) + n, 0, static_cast<int64_t>(m->size));
    const OPJ_OFF_T moved = to - static_cast<int64_t>(m->pos);
    m->pos = static_cast<uint64_t>(to);
    return moved;
  });
  opj_stream_set_seek_function(stream, [](OPJ_OFF_T to, void* user) -> OPJ_BOOL {
    auto* m = static_cast<Memory*>(user);
    if (to < 0 || static_cast<uint64_t>(to) > m->size) return OPJ_FALSE;
    m->pos = static_cast<uint64_t>(to);
    return OPJ_TRUE;
  });
  opj_codec_t* codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_set_error_handler(
      codec,
      [](const char* msg, void* user) {
        auto* m = static_cast<std::string*>(user);
        if (m->empty()) *m = msg;
        while (!m->empty() && m->back() == '\n') m->pop_back();
      },
      &message);
  opj_set_warning_handler(
      codec, [](const char*, void*) {}, nullptr);
  opj_set_info_handler(
      codec, [](const char*, void*) {}, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  opj_image_t* img = nullptr;
  Status st;
  auto fail = [&](const std::string& why) { st = InvalidArgument("ImageDecoder: JPEG 2000: ", why); };
  if (!opj_setup_decoder(codec, &params) || !opj_read_header(stream, codec, &img)) {
    fail(message.empty() ? "the header is not readable" : message);
  } else if (img->numcomps == 0 || img->x1 <= img->x0 || img->y1 <= img->y0) {
    fail("the image is empty");
  } else if (img->color_space == OPJ_CLRSPC_SYCC || img->color_space == OPJ_CLRSPC_EYCC ||
             img->color_space == OPJ_CLRSPC_CMYK) {
    fail("images in YCC or CMYK colour are not supported");
  } else {
    const int64_t width = img->x1 - img->x0, height = img->y1 - img->y0;
    // OpenJPEG decodes into an int32 a sample: check those too.
    st = allocate(image, height, width, "JPEG 2000", size);
    if (st.ok())
      st = check_host_table_bytes(static_cast<double>(width) * height * img->numcomps * 4,
                                  "ImageDecoder: JPEG 2000's decoded components");
    if (st.ok() && !(opj_decode(codec, stream, img) && opj_end_decompress(codec, stream)))
      fail(message.empty() ? "the image is damaged or truncated" : message);
    const int channels = img->numcomps >= 3 ? 3 : 1;
    for (int c = 0; st.ok() && c < channels; ++c) {
      const opj_image_comp_t& comp = img->comps[c];
      if (comp.w != static_cast<OPJ_UINT32>(width) || comp.h != static_cast<OPJ_UINT32>(height) || !comp.data ||
          comp.prec < 1 || comp.prec > 16)
        fail("subsampled components, or of more than 16 bits, are not supported");
    }
    for (int c = 0; st.ok() && c < 3; ++c) {
      const opj_image_comp_t& comp = img->comps[channels == 3 ? c : 0];
      const int32_t offset = comp.sgnd ? 1 << (comp.prec - 1) : 0, top = (1 << comp.prec) - 1;
      uint8_t* out = image.pixels.get() + c;
      for (int64_t i = 0; i < width * height; ++i, out += 3) {
        const int64_t v = std::clamp<int64_t>(int64_t{comp.data[i]} + offset, 0, top);
        *out = static_cast<uint8_t>(comp.prec == 8 ? v : (v * 255 + top / 2) / top);
      }
    }
  }
  if (img) opj_image_destroy(img);
  opj_destroy_codec(codec);
  opj_stream_destroy(stream);
  return st;
}

}  // namespace

StatusOr<RgbImage> decode_rgb(const uint8_t* data, size_t size) {
  RgbImage image;
  Status st;
  if (starts_with(data, size, {0xFF, 0xD8, 0xFF})) {
    st = decode_jpeg(data, size, image);
  } else if (starts_with(data, size, {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'})) {
    st = decode_png(data, size, image);
  } else if (starts_with(data, size, {'B', 'M'})) {
    st = decode_bmp(data, size, image);
  } else if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '7') {
    st = decode_pnm(data, size, image);
  } else if (starts_with(data, size, {'I', 'I', 42, 0}) || starts_with(data, size, {'M', 'M', 0, 42})) {
    st = decode_tiff(data, size, image);
  } else if (size >= 12 && starts_with(data, size, {'R', 'I', 'F', 'F'}) && std::memcmp(data + 8, "WEBP", 4) == 0) {
    st = decode_webp(data, size, image);
  } else if (starts_with(data, size, {0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n'})) {
    st = decode_jpeg2000(data, size, image, /*jp2=*/true);
  } else if (starts_with(data, size, {0xFF, 0x4F, 0xFF, 0x51})) {
    st = decode_jpeg2000(data, size, image, /*jp2=*/false);
  } else {
    std::string head;
    for (size_t i = 0; i < std::min<size_t>(size, 8); ++i) {
      char b[4];
      std::snprintf(b, sizeof b, "%02x ", data[i]);
      head += b;
    }
    if (!head.empty()) head.pop_back();
    return InvalidArgument("ImageDecoder: the data (", size, " bytes", size ? ", starting " + head : std::string(),
                           ") is none of the formats it reads: BMP, JPEG, JPEG 2000, PNG, PNM, TIFF, WebP");
  }
  if (!st.ok()) return st;
  return image;
}

}  // namespace image

namespace {

class ImageDecoderKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    format_ = node.attr_string("pixel_format", "RGB");
    if (format_ != "RGB" && format_ != "BGR" && format_ != "Grayscale")
      return InvalidArgument(node.describe(), ": pixel_format must be RGB, BGR or Grayscale, got '", format_, "'");
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined() || x.dtype() != DataType::kUInt8 || x.dims().rank() != 1)
      return InvalidArgument(ctx.node().describe(), ": encoded_stream must be a 1-D uint8 tensor, got ", x.describe());
    auto image = image::decode_rgb(x.data<uint8_t>(), static_cast<size_t>(x.numel()));
    if (!image.ok()) return image.status().with_context(ctx.node().describe());
    const int64_t h = image->height, w = image->width, channels = format_ == "Grayscale" ? 1 : 3;
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kUInt8, Dims{h, w, channels}));
    const uint8_t* in = image->pixels.get();
    uint8_t* out = y->data<uint8_t>();
    const int64_t n = h * w;
    if (format_ == "RGB") {
      std::memcpy(out, in, static_cast<size_t>(n * 3));
    } else if (format_ == "BGR") {
      for (int64_t i = 0; i < n; ++i, in += 3, out += 3) {
        out[0] = in[2];
        out[1] = in[1];
        out[2] = in[0];
      }
    } else {
      for (int64_t i = 0; i < n; ++i, in += 3)
        out[i] = static_cast<uint8_t>((in[0] * 19595u + in[1] * 38470u + in[2] * 7471u + 0x8000u) >> 16);
    }
    return OkStatus();
  }

 private:
  std::string format_;
};

}  // namespace

void register_cpu_image_decoder_kernel(KernelRegistry& r) {
  KernelDef d;
  d.op = "ImageDecoder";
  d.since_version = 20;
  d.types = {DataType::kUInt8};
  d.factory = &make_kernel<ImageDecoderKernel>;
  r.add(std::move(d));
}

}  // namespace sy
