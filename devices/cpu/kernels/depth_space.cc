// See depth_space.h.
#include "devices/cpu/kernels/depth_space.h"

#include <string>

namespace sy::tensor_ops {

StatusOr<DepthSpaceAttrs> parse_depth_space_attrs(const Node& node) {
  DepthSpaceAttrs a;
  a.block = node.attr_int("blocksize", 0);
  if (a.block <= 0) return InvalidArgument(node.describe(), ": blocksize must be positive");
  std::string mode = node.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") return InvalidArgument(node.describe(), ": unknown mode '", mode, "'");
  a.crd = mode == "CRD";
  return a;
}

StatusOr<DepthSpaceView> depth_space_view(const Dims& in, const DepthSpaceAttrs& a, bool to_space) {
  if (in.size() != 4) return InvalidArgument(to_space ? "DepthToSpace" : "SpaceToDepth", ": input must be 4-D");
  int64_t n = in[0], c = in[1], h = in[2], w = in[3], b = a.block;
  if (b > (1 << 20)) return InvalidArgument("blocksize ", b, " is too large");
  DepthSpaceView v;
  if (to_space) {
    if (c % (b * b) != 0) return InvalidArgument("DepthToSpace: channels ", c, " not divisible by blocksize^2");
    int64_t c2 = c / (b * b);
    v.out_dims = Dims{n, c2, h * b, w * b};
    // Output index order: n, c2, h, b1, w, b2.
    v.view = Dims{n, c2, h, b, w, b};
    int64_t sw = 1, sh = w, sc = h * w;
    if (a.crd)  // input channel = c2 * b*b + b1 * b + b2
      v.strides = Dims{c * sc, b * b * sc, sh, b * sc, sw, sc};
    else  // DCR: input channel = b1 * b * c2 + b2 * c2 + c2
      v.strides = Dims{c * sc, sc, sh, b * c2 * sc, sw, c2 * sc};
  } else {
    if (h % b != 0 || w % b != 0) return InvalidArgument("SpaceToDepth: spatial dims not divisible by blocksize");
    int64_t h2 = h / b, w2 = w / b;
    v.out_dims = Dims{n, c * b * b, h2, w2};
    // Output channel = b1 * b * c + b2 * c + c; index order n, b1, b2, c, h2, w2.
    v.view = Dims{n, b, b, c, h2, w2};
    v.strides = Dims{c * h * w, w, 1, h * w, b * w, b};
  }
  return v;
}

}  // namespace sy::tensor_ops
