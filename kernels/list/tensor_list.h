// TensorList: the value inside a scalar DT_VARIANT tensor that TensorFlow's
// TensorList* ops pass around (Keras' recurrent layers and tf.while_loop
// keep their per-step inputs and outputs in them).
//
// A list has an element dtype, a partial element shape every element must
// be compatible with, an optional maximum size, and its elements. An element
// that was reserved but never set is an uninitialized tensor of dtype
// DT_INVALID; reading it yields zeros of the (then fully known) element
// shape, as in TensorFlow.
//
// Copying a TensorList copies the vector of Tensors, which share their
// buffers (cheap per element, O(n) per list); kernels avoid even that when
// they own the only reference to their input list (see list_kernels.cc).
#ifndef TRIBUTARY_KERNELS_LIST_TENSOR_LIST_H_
#define TRIBUTARY_KERNELS_LIST_TENSOR_LIST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/framework/variant.h"

namespace tributary {

class OpKernelContext;

class TensorList {
 public:
  DataType element_dtype = DT_INVALID;
  PartialTensorShape element_shape;  // unknown rank by default
  int max_num_elements = -1;         // -1: no limit
  std::vector<Tensor> tensors;

  std::string TypeName() const { return "tensorflow::TensorList"; }
  // "TensorList<dtype: float element_shape: [?,3] size: 4>".
  std::string DebugString() const;
};

namespace list_ops {

// The TensorList in input `index` (a scalar DT_VARIANT tensor), or
// InvalidArgument naming the input when it is something else.
absl::Status GetInputList(OpKernelContext* ctx, int index,
                          const TensorList** list);

// A partial shape from an element_shape tensor: a scalar -1 is an unknown
// rank, otherwise an int32/int64 vector with -1 for unknown dims.
absl::Status PartialShapeFromTensor(const Tensor& t, PartialTensorShape* shape);
// The reverse (TensorListElementShape): int32 or int64 per `dtype`.
Tensor PartialShapeToTensor(const PartialTensorShape& shape, DataType dtype);

// Output `index` becomes a scalar DT_VARIANT tensor holding `list`.
absl::Status SetOutputList(OpKernelContext* ctx, int index, TensorList list);

// InvalidArgument unless the op's element_dtype attr equals the list's.
absl::Status CheckElementDtype(DataType op_dtype, const TensorList& list);

// A zero tensor of `dtype` and `shape` (for uninitialized elements).
absl::Status MakeZeros(OpKernelContext* ctx, DataType dtype,
                       const TensorShape& shape, Tensor* out);

// Every element of `src` copied into `dst`'s elements from `dst_offset` on
// (same dtype; `dst` has room): bytes for plain types, values for strings and
// variants. Unimplemented for a dtype that is neither.
absl::Status CopyElements(const Tensor& src, Tensor* dst, int64_t dst_offset);

// `count` elements of `dst` from `offset` on set to zero (empty strings,
// empty variants for those types).
absl::Status ZeroElements(Tensor* dst, int64_t offset, int64_t count);

// The list's element shape merged with an element_shape input.
absl::Status ElementShapeFromInput(const TensorList& list,
                                   const Tensor& shape_input,
                                   PartialTensorShape* shape);

// A fully known shape for an uninitialized element: the partial `shape`,
// completed from the list's set elements when it is not fully defined.
absl::Status ShapeForUninitialized(const TensorList& list,
                                   PartialTensorShape shape, TensorShape* out);

// The list of input 0 to change and pass on as output 0: the input's own
// value when nobody else references it (taken over in place, so a loop that
// changes one element per iteration stays O(n)), else a copy held in *copy;
// *holder keeps the forwarded tensor alive.
absl::Status MutableInputList(OpKernelContext* ctx, TensorList* copy,
                              TensorList** list, Tensor* holder);

// Publishes the list MutableInputList returned as output 0.
absl::Status OutputMutatedList(OpKernelContext* ctx, TensorList* copy,
                               TensorList* list, const Tensor& holder);

// Applies `change(TensorList*)` to input 0's list (in place or on a copy, as
// MutableInputList decides) and outputs the result as output 0.
template <typename Change>
absl::Status ChangeInputList(OpKernelContext* ctx, Change change) {
  TensorList copy;
  TensorList* list = nullptr;
  Tensor holder;
  absl::Status s = MutableInputList(ctx, &copy, &list, &holder);
  if (!s.ok()) return s;
  change(list);
  return OutputMutatedList(ctx, &copy, list, holder);
}

}  // namespace list_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_LIST_TENSOR_LIST_H_
