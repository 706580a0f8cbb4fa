// The kernel API. A Kernel is created once per node per session (so it can
// parse attributes up front) and its compute() is called for every execution
// of that node, possibly from several runs at once: compute must be const and
// thread-safe.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/runtime_value.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy {

// What a kernel whose output size depends on data it computes on an
// asynchronous device carries from its first launch to its second (see
// KernelContext::resume_after). Owned by the caller of compute().
struct KernelResume {
  bool resumed = false;       // set by the caller for the second launch
  bool requested = false;     // set by resume_after() in the first
  std::vector<Tensor> carry;  // from the first launch to the second
};

class KernelContext {
 public:
  // Bit i of `constant_inputs` set: input i is constant (see
  // input_constant); of `donated_inputs`: input i is given up to this
  // node (see input_donated).
  KernelContext(const Node& node, Device& device, std::span<const RuntimeValue* const> inputs,
                std::span<RuntimeValue* const> outputs, uint64_t constant_inputs = 0, uint64_t donated_inputs = 0)
      : node_(node),
        device_(device),
        inputs_(inputs),
        outputs_(outputs),
        constant_inputs_(constant_inputs),
        donated_inputs_(donated_inputs) {}

  const Node& node() const { return node_; }
  Device& device() const { return device_; }

  size_t num_inputs() const { return inputs_.size(); }
  // True if input i was given and holds a value (not an omitted optional).
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] && !inputs_[i]->is_none(); }
  // Tensor of input i; an undefined tensor if absent or not a tensor.
  const Tensor& input(size_t i) const;
  const RuntimeValue& input_value(size_t i) const;
  // True if input i holds the same tensor in every run of the session (an
  // initializer that is not a graph input, or a Constant node's output), so
  // the kernel may keep what it derives from it, such as weights reordered
  // into a faster layout. False past the 64th input.
  bool input_constant(size_t i) const { return i < 64 && (constant_inputs_ >> i & 1) != 0; }
  // True if input i's tensor is given up to this node: no node reads it
  // after this one, nothing else holds its buffer, and it is neither a
  // graph input nor a constant. The run loop decides it per run.
  bool input_donated(size_t i) const { return i < 64 && (donated_inputs_ >> i & 1) != 0; }

  size_t num_outputs() const { return outputs_.size(); }
  // False when the model omits output i, so kernels may skip computing it.
  bool output_wanted(size_t i) const { return i < outputs_.size() && outputs_[i] != nullptr; }
  // Allocates output i on this device and returns it for writing. For an
  // omitted output it returns a scratch tensor (one per output index) that is
  // dropped afterwards.
  StatusOr<Tensor*> allocate_output(size_t i, DataType dtype, const Dims& dims);
  // As allocate_output, but where input `from` is donated (input_donated),
  // holds no strings, lives in this device's memory and has the bytes,
  // output i takes over its buffer instead of new memory: written in
  // place, a residual or an elementwise op's operand then costs no copy
  // and no fresh cache lines. The output and the input then share their
  // elements, so the kernel must read each element of the input before
  // it writes that place of the output, and once it has written over the
  // input it must not fail in a way that reruns the node elsewhere.
  StatusOr<Tensor*> allocate_output_over(size_t i, size_t from, DataType dtype, const Dims& dims);
  // Sets output i to an existing value (e.g. a reshaped view of an input).
  void set_output(size_t i, RuntimeValue v);

  // Output sizes found on the device (NonZero's count). The run loop never
  // waits for a device, so such a kernel launches in two steps: the first
  // compute() queues the work that finds the sizes, a copy of them into
  // host memory included, and hands the tensors the second will need to
  // resume_after(); the task then completes without outputs. Once the
  // device has finished that work, the caller calls compute() again with
  // resumed() true and those tensors in carried(), the host copies now
  // readable, and that call fills the outputs. FailedPrecondition where the
  // caller cannot resume (set_resume() not called).
  Status resume_after(std::vector<Tensor> carry);
  bool resumed() const { return resume_ && resume_->resumed; }
  const std::vector<Tensor>& carried() const;
  // Called by the executor (and test harnesses) that support resume_after.
  void set_resume(KernelResume* r) { resume_ = r; }

 private:
  const Node& node_;
  Device& device_;
  std::span<const RuntimeValue* const> inputs_;
  std::span<RuntimeValue* const> outputs_;
  uint64_t constant_inputs_ = 0;
  uint64_t donated_inputs_ = 0;
  KernelResume* resume_ = nullptr;
  std::vector<Tensor> scratch_;  // only grows when a kernel fills an omitted output
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Called once when the session is planned. Validate and parse attributes.
  virtual Status init(const Node& node) {
    (void)node;
    return OkStatus();
  }
  virtual Status compute(KernelContext& ctx) const = 0;
};

using KernelFactory = std::unique_ptr<Kernel> (*)();

template <typename K>
std::unique_ptr<Kernel> make_kernel() {
  return std::make_unique<K>();
}

struct KernelDef {
  std::string domain;  // "" = ai.onnx
  std::string op;
  int since_version = 1;
  int end_version = INT_MAX;  // inclusive
  DeviceKind device = DeviceKind::kCpu;
  // Element types accepted for the first input; empty means any.
  std::vector<DataType> types;
  // Bit i set: input i must be in host memory (shape tensors, K of TopK, ...).
  uint64_t host_inputs = 0;
  // Bit i set: the kernel reads only input i's type and dims, never its
  // data (Shape, Size), so the input is used wherever it lives, not copied.
  uint64_t shape_only_inputs = 0;
  // Output size depends on input data (NonZero, Unique...). A host kernel
  // sizes its outputs as it runs; an asynchronous device's kernel finds the
  // size in a first launch and fills the outputs in a second
  // (KernelContext::resume_after).
  bool data_dependent_shape = false;
  KernelFactory factory = nullptr;
};

}  // namespace sy
