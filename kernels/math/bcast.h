#ifndef TRIBUTARY_KERNELS_MATH_BCAST_H_
#define TRIBUTARY_KERNELS_MATH_BCAST_H_

// NumPy/TensorFlow broadcasting of several shapes, reduced to the fewest
// dimensions Eigen needs.
//
// Shapes are aligned at their last dimension; each dimension pair must be
// equal or one of them 1. For [2,3,4] + [3,1] the output is [2,3,4]. With
// the "fewer dims" optimisation (TensorFlow's default for binary ops),
// adjacent dimensions that broadcast the same way for every input are
// merged, so the kernel evaluates
//   in_i.reshape(reshape(i)).broadcast(bcast(i))
// on a rank-result_shape().size() tensor: [2,3,4] + [3,1] becomes
// reshapes [2,3,4] and [1,3,1], bcasts [1,1,1] and [2,1,4]; [6,4] + [1,4]
// (matrix + row) stays rank 2 and [6] + [6] collapses to rank 1.
//
// Same semantics as tensorflow::BCastList, own implementation.

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "common/framework/tensor_shape.h"

namespace tributary {

class BCastList {
 public:
  using Vec = std::vector<int64_t>;

  // `fewer_dims` merges dimensions as described above; without it every
  // output dimension is kept (SelectV2 wants the full-rank form).
  BCastList(const std::vector<Vec>& shapes, bool fewer_dims = true);

  bool IsValid() const { return valid_; }
  // The broadcast shape, full rank (e.g. [2,3,4]).
  const Vec& output_shape() const { return output_; }
  TensorShape output_tensor_shape() const;
  // The (possibly merged) shape the kernel evaluates on.
  const Vec& result_shape() const { return result_; }
  const Vec& reshape(int i) const { return reshape_[i]; }
  const Vec& bcast(int i) const { return bcast_[i]; }
  // True when input `i` needs no broadcasting (bcast is all ones).
  bool IsIdentity(int i) const;
  int64_t output_num_elements() const;
  // For each output element, row-major, the flat index of the element of
  // input `i` it reads (TensorFlow's flattened batch indices).
  std::vector<int64_t> SourceIndices(int i) const;

 private:
  bool valid_ = true;
  Vec output_;
  Vec result_;
  std::vector<Vec> reshape_;
  std::vector<Vec> bcast_;
};

// The common two-shape case.
class BCast : public BCastList {
 public:
  BCast(const Vec& x, const Vec& y, bool fewer_dims = true)
      : BCastList({x, y}, fewer_dims) {}
  const Vec& x_reshape() const { return reshape(0); }
  const Vec& y_reshape() const { return reshape(1); }
  const Vec& x_bcast() const { return bcast(0); }
  const Vec& y_bcast() const { return bcast(1); }
};

inline BCastList::Vec ShapeToVec(const TensorShape& shape) {
  absl::Span<const int64_t> dims = shape.dim_sizes();
  return BCastList::Vec(dims.begin(), dims.end());
}

// For each output batch of a broadcast batched product (flattened), the
// flattened batch index of one input, from BCast's result_shape() and that
// input's x_reshape()/y_reshape(). Shared by the CPU and GPU BatchMatMulV2.
std::vector<int64_t> BroadcastBatchIndices(const BCast::Vec& result,
                                           const BCast::Vec& reshape);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_BCAST_H_
