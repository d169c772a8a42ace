#ifndef TRIBUTARY_KERNELS_TENSOR_ARRAY_TENSOR_ARRAY_H_
#define TRIBUTARY_KERNELS_TENSOR_ARRAY_TENSOR_ARRAY_H_
// TensorArray: the resource behind a TensorArrayV3 handle, an array of
// tensors living in the step's container (see common/resource/
// step_container.h), with TensorFlow's rules:
//
// * each index is written once (gradient arrays instead add later writes to
//   the first, and refuse a write after a read);
// * with clear_after_read a read drops the element, and reading it again is
//   an error;
// * reading an index never written gives zeros when its shape is known (the
//   forward array's element shape copied into a gradient array, or a fully
//   defined element_shape), else InvalidArgument;
// * a fixed-size array refuses indices past its size, a dynamic one grows;
// * after Close every access fails.
//
// Every error is InvalidArgument, as in TensorFlow. Thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/resource/resource_base.h"

namespace tributary {

class TensorArray : public ResourceBase {
 public:
  struct Options {
    DataType dtype = DT_FLOAT;
    int32_t size = 0;
    PartialTensorShape element_shape;  // Unknown rank by default.
    bool identical_element_shapes = false;
    bool dynamic_size = false;
    bool clear_after_read = true;
    // Gradient arrays: a second write to an index adds to the first.
    bool multiple_writes_aggregate = false;
  };

  // `name` is the handle's resource name, used in messages.
  TensorArray(std::string name, const Options& options);

  std::string DebugString() const override;

  const std::string& name() const { return name_; }
  DataType dtype() const { return options_.dtype; }
  PartialTensorShape element_shape() const;
  bool identical_element_shapes() const {
    absl::ReaderMutexLock l(&mu_);
    return options_.identical_element_shapes;
  }
  bool dynamic_size() const {
    absl::ReaderMutexLock l(&mu_);
    return options_.dynamic_size;
  }

  absl::Status Size(int32_t* size) const;
  absl::Status Write(int32_t index, const Tensor& value);
  // `dtype` is the op's; a mismatch is InvalidArgument.
  absl::Status Read(int32_t index, DataType dtype, Tensor* value);
  // The shapes of the written elements of `source` (plus `prepend` in
  // front) become this array's shapes for indices nobody writes, so their
  // reads give zeros of the right shape (gradient arrays).
  absl::Status CopyShapesFrom(const TensorArray& source,
                              const TensorShape* prepend);
  absl::Status Close();

 private:
  struct Element {
    Tensor tensor;
    TensorShape shape;
    bool has_shape = false;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  absl::Status CheckOpenLocked(const char* what, int32_t index) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const std::string name_;
  mutable absl::Mutex mu_;
  Options options_ ABSL_GUARDED_BY(mu_);
  std::vector<Element> elements_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// Zeros of `dtype` and `shape` (numeric and bool dtypes, strings empty).
absl::Status MakeZeroTensor(DataType dtype, const TensorShape& shape,
                            Tensor* out);
// a + b elementwise (same dtype and shape): float, double, half, bfloat16,
// int32, int64, complex64/128. Unimplemented for the rest.
absl::Status AddTensors(const Tensor& a, const Tensor& b, Tensor* out);
// Copies `src`'s elements into `dst` from element `offset` on (same dtype).
void CopyElements(const Tensor& src, Tensor* dst, int64_t offset);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TENSOR_ARRAY_TENSOR_ARRAY_H_
