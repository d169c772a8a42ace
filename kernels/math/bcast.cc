#include "kernels/math/bcast.h"

#include <algorithm>

namespace tributary {

BCastList::BCastList(const std::vector<Vec>& shapes, bool fewer_dims)
    : reshape_(shapes.size()), bcast_(shapes.size()) {
  const size_t n = shapes.size();
  bool all_same = true;
  for (size_t i = 1; i < n; ++i) {
    if (shapes[i] != shapes[0]) all_same = false;
  }
  if (all_same && fewer_dims) {
    // Common case: plain elementwise on the flattened tensors.
    output_ = n > 0 ? shapes[0] : Vec();
    int64_t elements = 1;
    for (int64_t d : output_) elements *= d;
    result_ = {elements};
    for (size_t i = 0; i < n; ++i) {
      reshape_[i] = {elements};
      bcast_[i] = {1};
    }
    return;
  }

  size_t rank = 0;
  for (const Vec& s : shapes) rank = std::max(rank, s.size());
  // Reversed and padded with leading (here: trailing) ones, so index j is
  // the j-th dimension counted from the end.
  std::vector<Vec> rev(n, Vec(rank, 1));
  for (size_t i = 0; i < n; ++i) {
    std::copy(shapes[i].rbegin(), shapes[i].rend(), rev[i].begin());
  }

  std::vector<bool> prev_is_one(n, false), cur_is_one(n, false);
  bool have_prev = false;
  for (size_t j = 0; j < rank; ++j) {
    int64_t out_dim = -1;
    bool out_dim_set = false;
    for (size_t i = 0; i < n; ++i) {
      const int64_t d = rev[i][j];
      cur_is_one[i] = (d == 1);
      if (d == 1) continue;
      if (!out_dim_set || d == out_dim) {
        out_dim = d;
        out_dim_set = true;
      } else {
        valid_ = false;
        return;
      }
    }
    output_.push_back(out_dim_set ? out_dim : 1);
    if (!out_dim_set) {
      // Every input is 1 here: nothing to broadcast.
      if (!fewer_dims) {
        result_.push_back(1);
        for (size_t i = 0; i < n; ++i) {
          reshape_[i].push_back(1);
          bcast_[i].push_back(1);
        }
      }
      continue;
    }
    if (fewer_dims && have_prev && prev_is_one == cur_is_one) {
      // Broadcasts exactly like the previous kept dimension: merge.
      result_.back() *= out_dim;
      for (size_t i = 0; i < n; ++i) {
        reshape_[i].back() *= rev[i][j];
        bcast_[i].back() *= cur_is_one[i] ? out_dim : 1;
      }
    } else {
      result_.push_back(out_dim);
      for (size_t i = 0; i < n; ++i) {
        reshape_[i].push_back(rev[i][j]);
        bcast_[i].push_back(cur_is_one[i] ? out_dim : 1);
      }
    }
    have_prev = true;
    prev_is_one = cur_is_one;
  }
  if (result_.empty()) {
    result_ = {1};
    for (size_t i = 0; i < n; ++i) {
      reshape_[i] = {1};
      bcast_[i] = {1};
    }
  }
  std::reverse(output_.begin(), output_.end());
  std::reverse(result_.begin(), result_.end());
  for (size_t i = 0; i < n; ++i) {
    std::reverse(reshape_[i].begin(), reshape_[i].end());
    std::reverse(bcast_[i].begin(), bcast_[i].end());
  }
}

TensorShape BCastList::output_tensor_shape() const {
  return TensorShape(absl::Span<const int64_t>(output_));
}

bool BCastList::IsIdentity(int i) const {
  for (int64_t b : bcast_[i]) {
    if (b != 1) return false;
  }
  return true;
}

int64_t BCastList::output_num_elements() const {
  int64_t n = 1;
  for (int64_t d : output_) n *= d;
  return n;
}

std::vector<int64_t> BCastList::SourceIndices(int i) const {
  const Vec& in = reshape_[i];
  const size_t rank = result_.size();
  // Input strides in the result's dimensions; 0 where input i broadcasts.
  Vec stride(rank, 0);
  int64_t s = 1;
  for (size_t k = rank; k-- > 0;) {
    stride[k] = in[k] == 1 ? 0 : s;
    s *= in[k];
  }
  std::vector<int64_t> indices(output_num_elements());
  Vec position(rank, 0);
  int64_t source = 0;
  for (int64_t& index : indices) {
    index = source;
    for (size_t k = rank; k-- > 0;) {
      source += stride[k];
      if (++position[k] < result_[k]) break;
      source -= stride[k] * position[k];
      position[k] = 0;
    }
  }
  return indices;
}

std::vector<int64_t> BroadcastBatchIndices(const BCast::Vec& result,
                                           const BCast::Vec& reshape) {
  int64_t total = 1;
  for (int64_t d : result) total *= d;
  std::vector<int64_t> indices(total);
  const int rank = static_cast<int>(result.size());
  std::vector<int64_t> coord(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t index = 0;
    for (int k = 0; k < rank; ++k) {
      index = index * reshape[k] + (reshape[k] == 1 ? 0 : coord[k]);
    }
    indices[i] = index;
    for (int k = rank - 1; k >= 0; --k) {
      if (++coord[k] < result[k]) break;
      coord[k] = 0;
    }
  }
  return indices;
}

}  // namespace tributary
