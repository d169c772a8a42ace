#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_CALL_FRAME_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_CALL_FRAME_H_

// The call frame: how a partition graph rewritten for call-frame feeds and
// fetches (TensorFlow's FunctionCallFrame, core/framework/function.h) receives
// its feeds and returns its fetches. The rewrite turns each feed into an `_Arg`
// node with attr index=i and each fetch into a `_Retval` node with index=j; at
// run time the executor reads argument i from the frame for the _Arg and stores
// the _Retval's input as return value j. This avoids a rendezvous round trip
// (key formatting, a hash table, a lock) for every feed and fetch of a local
// step.
//
// TensorFlow's CallFrameInterface and FunctionCallFrame, with its error
// messages.

#include <cstddef>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"

namespace tributary {

class CallFrameInterface {
 public:
  virtual ~CallFrameInterface() = default;

  virtual size_t num_args() const = 0;
  virtual size_t num_retvals() const = 0;

  // The argument `index` (the frame keeps owning it). InvalidArgument when
  // the index is out of range.
  virtual absl::Status GetArg(int index, const Tensor** val) = 0;

  // Whether argument `index` may be moved out (ConsumeArg) instead of
  // copied, which lets the graph reuse the fed buffer in place.
  virtual bool CanConsumeArg(int index) const { return false; }
  virtual void ConsumeArg(int index, Tensor* val) {}

  // Stores return value `index`. InvalidArgument when the index is out of
  // range, the dtype differs from the declared one, or the value was
  // already set. May be called concurrently for different indices.
  virtual absl::Status SetRetval(int index, const Tensor& val) = 0;
};

// A frame with declared argument and return types, filled by the caller
// (SetArgs) and read back after the step (GetRetvals / ConsumeRetvals).
class FunctionCallFrame : public CallFrameInterface {
 public:
  FunctionCallFrame(DataTypeSlice arg_types, DataTypeSlice ret_types);
  ~FunctionCallFrame() override;

  FunctionCallFrame(const FunctionCallFrame&) = delete;
  FunctionCallFrame& operator=(const FunctionCallFrame&) = delete;

  // Sets every argument. InvalidArgument ("Expects N arguments, but M is
  // provided" / "Expects arg[i] to be float but int32 is provided") on a
  // count or dtype mismatch.
  absl::Status SetArgs(absl::Span<const Tensor> args);

  // Copies of the return values. Internal ("Retval[i] does not have value")
  // when one was never set.
  absl::Status GetRetvals(std::vector<Tensor>* rets) const;

  // Moves the return values out. With `allow_dead_tensors`, a return value
  // never set (its _Retval was dead) comes back as an empty Tensor instead
  // of an error.
  absl::Status ConsumeRetvals(std::vector<Tensor>* rets,
                              bool allow_dead_tensors);

  size_t num_args() const override { return arg_types_.size(); }
  size_t num_retvals() const override { return ret_types_.size(); }

  absl::Status GetArg(int index, const Tensor** val) override;
  absl::Status SetRetval(int index, const Tensor& val) override;

 private:
  struct Retval {
    bool has_val = false;
    Tensor val;
  };

  const DataTypeVector arg_types_;
  const DataTypeVector ret_types_;
  std::vector<Tensor> args_;
  mutable absl::Mutex mu_;  // SetRetval runs on many threads.
  std::vector<Retval> rets_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_CALL_FRAME_H_
