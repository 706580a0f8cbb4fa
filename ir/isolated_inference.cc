#include "ir/isolated_inference.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "ir/child_process.h"
#include "ir/schema_registry.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace sy {
namespace {

// A protobuf message cannot be larger (ParseFromArray takes an int).
constexpr size_t kMaxAnswer = sizeof(uint64_t) + static_cast<size_t>(INT32_MAX);

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Address space the child may add to what it inherits. Inference of a
// sane graph needs a few MB; libonnx trusts declared dims, and ConstantOfShape
// of an input declared [9223372036854775807] builds an output shape of that
// rank, growing by ~300 MB/s until the machine's memory is gone. At the
// limit an allocation throws and the child gives up (no types).
constexpr uint64_t kChildMemoryBudget = uint64_t{1} << 30;

void limit_address_space() {
  // The inherited size is what fork copied (under ASan, terabytes of
  // reserved shadow), so the limit is relative to it.
  char buf[64] = {};
  const int fd = ::open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return;
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return;
  const uint64_t pages = std::strtoull(buf, nullptr, 10);
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (pages == 0 || page == 0) return;
  rlimit r{};
  r.rlim_cur = r.rlim_max = pages * page + kChildMemoryBudget;
  (void)::setrlimit(RLIMIT_AS, &r);
}

// The graph's and its subgraphs' tensor values dropped (in the child's
// own copy, so nothing is allocated): what is left to send is the
// structure and the types.
void strip_values(onnx::GraphProto& g) {
  g.clear_initializer();
  g.clear_sparse_initializer();
  for (onnx::NodeProto& node : *g.mutable_node())
    for (onnx::AttributeProto& a : *node.mutable_attribute()) {
      a.clear_t();
      a.clear_tensors();
      a.clear_sparse_tensor();
      a.clear_sparse_tensors();
      if (a.has_g()) strip_values(*a.mutable_g());
      for (onnx::GraphProto& sub : *a.mutable_graphs()) strip_values(sub);
    }
}

// The child: infers, then writes the length of the result and the result.
// Ends with _exit, so none of the parent's exit handlers or static
// destructors (thread pools, GPU contexts) run twice.
[[noreturn]] void child_main(const onnx::ModelProto& proto, int out_fd) {
  // Whatever a crash prints (a sanitizer report, an assertion) is noise in
  // the parent's output: the parent just goes without the types.
  if (const int null_fd = ::open("/dev/null", O_WRONLY); null_fd >= 0) {
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
  }
  limit_address_space();
  std::string payload;
  try {
    // The child's memory is its own copy: inference may write to `proto`.
    auto& model = const_cast<onnx::ModelProto&>(proto);
    onnx::ShapeInferenceOptions opts{/*check_type=*/true, /*error_mode=*/0, /*enable_data_propagation=*/false};
    onnx::shape_inference::InferShapes(model, &SchemaRegistry::instance(), opts);
    strip_values(*model.mutable_graph());
    payload = model.graph().SerializeAsString();
  } catch (...) {
    ::_exit(1);
  }
  const uint64_t n = payload.size();
  const bool ok = write_all(out_fd, reinterpret_cast<const char*>(&n), sizeof n) &&
                  write_all(out_fd, payload.data(), payload.size());
  ::_exit(ok ? 0 : 1);
}

}  // namespace

std::optional<onnx::GraphProto> infer_types_isolated(const onnx::ModelProto& proto, int timeout_ms) {
  // Built here, once per process, rather than in every child.
  (void)SchemaRegistry::instance();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    child_main(proto, fds[1]);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return std::nullopt;
  }
  // Its exit status is not needed: a complete answer is the length prefix
  // and that many bytes (a child killed mid-write leaves fewer).
  const ChildOutput out = collect_child(pid, fds[0], timeout_ms, kMaxAnswer);
  const std::string& got = out.bytes;
  uint64_t n = 0;
  if (out.timed_out || got.size() < sizeof n) return std::nullopt;
  std::memcpy(&n, got.data(), sizeof n);
  if (n != got.size() - sizeof n || n > static_cast<uint64_t>(INT32_MAX)) return std::nullopt;
  onnx::GraphProto inferred;
  if (!inferred.ParseFromArray(got.data() + sizeof n, static_cast<int>(n))) return std::nullopt;
  return inferred;
}

namespace {

// A subgraph's outputs take their inferred types too: a body output that
// declares no shape (most exporters' bodies) then has one where inference
// found it, which a Loop or Scan of no iterations needs for its empty scan
// outputs.
void apply_subgraph(onnx::GraphProto& g, const onnx::GraphProto& inferred) {
  apply_inferred_types(g, inferred);
  if (inferred.output_size() != g.output_size()) return;
  // By name: a value listed twice (carried and scanned, say) may have its
  // shape on one entry only, or only among the value_info and inputs.
  std::unordered_map<std::string, const onnx::TypeProto*> shaped;
  auto note = [&](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape()) shaped.emplace(v.name(), &v.type());
  };
  for (const auto* list : {&inferred.output(), &inferred.value_info(), &inferred.input()})
    for (const onnx::ValueInfoProto& v : *list) note(v);
  for (int i = 0; i < g.output_size(); ++i) {
    const onnx::ValueInfoProto& twin = inferred.output(i);
    if (twin.name() != g.output(i).name()) continue;
    const auto it = shaped.find(twin.name());
    if (it != shaped.end())
      *g.mutable_output(i)->mutable_type() = *it->second;
    else if (twin.has_type())
      *g.mutable_output(i)->mutable_type() = twin.type();
  }
}

}  // namespace

void apply_inferred_types(onnx::GraphProto& g, const onnx::GraphProto& inferred) {
  *g.mutable_value_info() = inferred.value_info();
  if (inferred.node_size() != g.node_size()) return;
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto& node = *g.mutable_node(i);
    const onnx::NodeProto& twin = inferred.node(i);
    if (twin.op_type() != node.op_type() || twin.attribute_size() != node.attribute_size()) continue;
    for (int k = 0; k < node.attribute_size(); ++k) {
      onnx::AttributeProto& a = *node.mutable_attribute(k);
      const onnx::AttributeProto& b = twin.attribute(k);
      if (a.name() != b.name() || a.graphs_size() != b.graphs_size()) continue;
      if (a.has_g() && b.has_g()) apply_subgraph(*a.mutable_g(), b.g());
      for (int j = 0; j < a.graphs_size(); ++j) apply_subgraph(*a.mutable_graphs(j), b.graphs(j));
    }
  }
}

}  // namespace sy
