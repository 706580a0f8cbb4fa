// Helpers for tests that drive the `switchyard` binary as a user would: run a
// command with a time limit and capture its exit status and output, make and
// clean up temporary folders, and build small ONNX models with the protobuf
// API. Header-only; every function is safe to call from parallel test
// processes (temporary names are unique per call).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace sy::cli_test {

namespace fs = std::filesystem;

// The binary and the source tree the tests were built with, unless the
// environment names others: a bundle copied to a GPU machine
// (scripts/gpu-check.sh) runs from other paths.
inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
inline std::string switchyard_bin() { return env_or("SWITCHYARD_BIN", SY_SWITCHYARD_BIN); }
inline fs::path source_dir() { return fs::path(env_or("SWITCHYARD_SOURCE_DIR", SY_SOURCE_DIR)); }

// A fresh folder under the system temp dir, removed (with its contents) when
// the object goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "sy_cli_test") {
    std::string templ = (fs::temp_directory_path() / (prefix + "_XXXXXX")).string();
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + templ);
    path_ = fs::path(buf.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

inline std::string read_text_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

// Outcome of one command. `exit_code` is meaningful only when `exited`.
struct CommandResult {
  std::string command;
  bool exited = false;     // terminated normally with an exit code
  int exit_code = -1;
  bool signaled = false;   // killed by a signal (crash, abort, OOM kill)
  int signal = 0;
  bool timed_out = false;  // `timeout` stopped it
  double seconds = 0;
  std::string out;
  std::string err;

  // Lines of stderr that start with "error:".
  std::vector<std::string> error_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("error:", 0) == 0) lines.push_back(line);
    return lines;
  }
  std::string describe() const {
    std::ostringstream s;
    s << "command: " << command << "\n";
    if (timed_out) s << "TIMED OUT\n";
    if (signaled) s << "KILLED BY SIGNAL " << signal << " (" << strsignal(signal) << ")\n";
    if (exited) s << "exit code: " << exit_code << "\n";
    s << "elapsed: " << seconds << " s\n";
    s << "--- stderr ---\n" << err.substr(0, 4000) << "\n--- stdout ---\n" << out.substr(0, 2000);
    return s.str();
  }
};

// Runs argv (no shell interpretation of its words) under `timeout`, capturing
// stdout and stderr. A command that overruns gets SIGTERM, then SIGKILL 5 s
// later. Exit statuses >128 from the shell mean the program died by a signal.
// Its stdin is the file `stdin_path`.
inline CommandResult run_command(const std::vector<std::string>& argv, int timeout_s = 60,
                                 const std::string& stdin_path = "/dev/null") {
  TempDir io("sy_cli_io");
  CommandResult r;
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  r.command = cmd;
  const std::string full = "timeout -k 5 " + std::to_string(timeout_s) + " " + cmd + " >" +
                           shell_quote(io.file("stdout")) + " 2>" + shell_quote(io.file("stderr")) + " <" +
                           shell_quote(stdin_path);
  const auto t0 = std::chrono::steady_clock::now();
  const int raw = std::system(full.c_str());
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.out = read_text_file(io.file("stdout"));
  r.err = read_text_file(io.file("stderr"));
  if (raw == -1) {
    r.err += "\n[test harness: std::system failed]";
    return r;
  }
  if (WIFSIGNALED(raw)) {
    r.signaled = true;
    r.signal = WTERMSIG(raw);
    return r;
  }
  const int code = WEXITSTATUS(raw);
  if (code == 124 || code == 137) {  // timeout's own code, or SIGKILL after -k
    r.timed_out = true;
    if (code == 137) {
      r.signaled = true;
      r.signal = 9;
    }
    return r;
  }
  if (code > 128) {  // the shell (or timeout) reports a child killed by a signal as 128+N
    r.signaled = true;
    r.signal = code - 128;
    return r;
  }
  r.exited = true;
  r.exit_code = code;
  return r;
}

inline CommandResult run_switchyard(const std::vector<std::string>& args, int timeout_s = 60) {
  std::vector<std::string> argv{switchyard_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, timeout_s);
}

inline std::string to_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// True when `text` contains any of `needles`, ignoring case.
inline bool contains_any(const std::string& text, const std::vector<std::string>& needles) {
  const std::string t = to_lower(text);
  return std::any_of(needles.begin(), needles.end(), [&](const std::string& n) { return t.find(to_lower(n)) != std::string::npos; });
}

// ----------------------------------------------------------------------------
// ONNX model building
// ----------------------------------------------------------------------------

inline void write_model(const onnx::ModelProto& m, const fs::path& p) {
  std::string bytes;
  if (!m.SerializeToString(&bytes)) throw std::runtime_error("cannot serialise model for " + p.string());
  write_bytes(p, bytes);
}

inline onnx::ModelProto make_model(int64_t opset = 17, int64_t ir_version = 8, const std::string& graph_name = "g") {
  onnx::ModelProto m;
  m.set_ir_version(ir_version);
  m.set_producer_name("sy_cli_tests");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name(graph_name);
  return m;
}

// Fills a tensor type. A dim of -1 becomes a symbolic dim named "d<i>"; use
// `symbols` to name them explicitly (same length as dims, "" = use value).
inline void set_tensor_type(onnx::ValueInfoProto* v, const std::string& name, int32_t elem,
                            const std::vector<int64_t>& dims, const std::vector<std::string>& symbols = {}) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* d = shape->add_dim();
    if (i < symbols.size() && !symbols[i].empty()) d->set_dim_param(symbols[i]);
    else if (dims[i] < 0) d->set_dim_param("d" + std::to_string(i));
    else d->set_dim_value(dims[i]);
  }
}

inline onnx::ValueInfoProto* add_input(onnx::GraphProto* g, const std::string& name, int32_t elem,
                                       const std::vector<int64_t>& dims, const std::vector<std::string>& symbols = {}) {
  auto* v = g->add_input();
  set_tensor_type(v, name, elem, dims, symbols);
  return v;
}

inline onnx::ValueInfoProto* add_output(onnx::GraphProto* g, const std::string& name, int32_t elem,
                                        const std::vector<int64_t>& dims, const std::vector<std::string>& symbols = {}) {
  auto* v = g->add_output();
  set_tensor_type(v, name, elem, dims, symbols);
  return v;
}

inline onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs, const std::string& name = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(g->node_size()) : name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

inline void add_attr_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void add_attr_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

inline onnx::GraphProto* add_attr_graph(onnx::NodeProto* n, const std::string& name, const std::string& graph_name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(graph_name);
  return a->mutable_g();
}

inline onnx::TensorProto* add_float_initializer(onnx::GraphProto* g, const std::string& name,
                                                const std::vector<int64_t>& dims, const std::vector<float>& values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
  return t;
}

inline onnx::TensorProto* add_int64_initializer(onnx::GraphProto* g, const std::string& name,
                                                const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return t;
}

// A valid model: y = Relu(x + W), x and y float[2,3], W an initializer.
inline onnx::ModelProto relu_model() {
  onnx::ModelProto m = make_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", onnx::TensorProto::FLOAT, {2, 3});
  add_float_initializer(g, "W", {2, 3}, {1, 2, 3, 4, 5, 6});
  add_node(g, "Add", {"x", "W"}, {"t"});
  add_node(g, "Relu", {"t"}, {"y"});
  add_output(g, "y", onnx::TensorProto::FLOAT, {2, 3});
  return m;
}

// ----------------------------------------------------------------------------
// .npy writing (version 1.0, little-endian, C order)
// ----------------------------------------------------------------------------

// `descr` is the numpy type string, e.g. "<f4", "<i8", "<i4", "|b1".
// A version 1.0 .npy with `shape_text` between the shape's parentheses as
// written, so that tests can write shapes np.save never does.
inline std::string npy_bytes_with_shape(const std::string& descr, const std::string& shape_text, const void* data,
                                        size_t nbytes) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape_text + "), }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(data), nbytes);
  return out;
}

inline std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const void* data, size_t nbytes) {
  std::string sh;
  for (size_t i = 0; i < shape.size(); ++i) sh += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  return npy_bytes_with_shape(descr, sh, data, nbytes);
}

inline void write_npy_f32(const fs::path& p, const std::vector<int64_t>& shape, const std::vector<float>& v) {
  write_bytes(p, npy_bytes("<f4", shape, v.data(), v.size() * sizeof(float)));
}
inline void write_npy_i64(const fs::path& p, const std::vector<int64_t>& shape, const std::vector<int64_t>& v) {
  write_bytes(p, npy_bytes("<i8", shape, v.data(), v.size() * sizeof(int64_t)));
}
inline void write_npy_i32(const fs::path& p, const std::vector<int64_t>& shape, const std::vector<int32_t>& v) {
  write_bytes(p, npy_bytes("<i4", shape, v.data(), v.size() * sizeof(int32_t)));
}

}  // namespace sy::cli_test
