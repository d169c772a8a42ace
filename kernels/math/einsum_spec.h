// Einsum's equation, resolved against the input shapes into a plan the kernel
// (einsum_op.cc) carries out with permute-and-sum passes and one batched
// matrix product.
//
// Equations follow TensorFlow's op: "in0->out" or "in0,in1->out" (exactly one
// "->", one or two inputs), subscripts are letters, "..." stands for the
// leading broadcast dimensions (right-aligned; size 1 broadcasts against the
// other input, as NumPy does). Broadcast dimensions must appear in the output
// (TensorFlow requires the "..." there whenever there are any). Labels absent
// from the output are summed. A label repeated within one input takes that
// input's diagonal, as TensorFlow does ("ii->i" is the diagonal, "ii->" the
// trace, "iij->j" the diagonal summed): its axes must have one size, and the
// kernel first reduces such an input to one axis per distinct label.
//
// Every label gets an id; a named label keeps one size everywhere, a
// broadcast dimension may be 1 on one side.
#ifndef TRIBUTARY_KERNELS_MATH_EINSUM_SPEC_H_
#define TRIBUTARY_KERNELS_MATH_EINSUM_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/framework/tensor_shape.h"

namespace tributary {

struct EinsumPlan {
  // Per input: the label id of each axis, as written (a label may repeat).
  std::vector<std::vector<int>> raw_input_labels;
  // Per input: its distinct label ids in order of first appearance, the axes
  // of the input once its diagonals are taken (equal to raw_input_labels
  // when no label repeats).
  std::vector<std::vector<int>> input_labels;
  std::vector<int> output_labels;
  // Output size of each label id (the broadcast size for "..." dimensions).
  std::vector<int64_t> label_size;
  TensorShape output_shape;

  // Two inputs only. Batch labels are in both inputs and the output, free
  // labels in one input and the output, contracted ones in both inputs and
  // not the output; labels in one input only and not in the output are summed
  // away first.
  std::vector<int> batch, free0, free1, contracted;
};

// InvalidArgument for a malformed equation or mismatched shapes (including
// the axes of a repeated label having different sizes).
absl::StatusOr<EinsumPlan> PlanEinsum(const std::string& equation,
                                      const std::vector<TensorShape>& inputs);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_EINSUM_SPEC_H_
