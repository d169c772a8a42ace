// The row shuffle TensorFlow's RandomShuffle and StatelessShuffle share
// (its shuffle_common.h), so the same generator gives TensorFlow's
// permutation.
//
// Contract: an input with at most one element or one row is output 0
// unchanged and draws nothing. Otherwise, for n rows, a Fisher-Yates pass
// from the front swaps position i with i + word % (n - i), one uint32 word
// per swap read in order from `gen` (n - 1 words: ceil((n-1)/4) Philox
// samples, which RandomShuffle reserves), and output 0 gets the rows in that
// order. Any dtype, strings included.

#ifndef TRIBUTARY_KERNELS_RANDOM_SHUFFLE_ROWS_H_
#define TRIBUTARY_KERNELS_RANDOM_SHUFFLE_ROWS_H_

#include "common/framework/tensor.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

void ShuffleRows(OpKernelContext* context, const Tensor& input,
                 PhiloxRandom gen);

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_SHUFFLE_ROWS_H_
