// Image decoding for ImageDecoder (opset 20): BMP and PNM by hand, JPEG,
// PNG, TIFF, WebP and JPEG 2000 through their reference libraries
// (libjpeg-turbo, libpng, libtiff, libwebp, OpenJPEG), all from memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ir/status.h"

namespace sy::image {

// 8-bit RGB, [height, width, 3], row-major.
struct RgbImage {
  int64_t height = 0, width = 0;
  std::unique_ptr<uint8_t[]> pixels;
};

// The image `data` holds, told apart by its first bytes; grey images come
// out with three equal channels, and an alpha channel is dropped (PNG's is
// composited onto black). InvalidArgument for data of no known format,
// damaged or truncated data, and forms of a format that are not read
// (compressed BMP, ASCII or 16-bit PNM, JPEG 2000 with subsampled or sYCC
// components, ...), with the reason; ResourceExhausted where the
// dimensions the data claims would take more than the host allocator
// gives one tensor, before anything that size is made. Thread-safe.
StatusOr<RgbImage> decode_rgb(const uint8_t* data, size_t size);

}  // namespace sy::image
