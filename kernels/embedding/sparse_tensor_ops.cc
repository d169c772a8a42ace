// SparseTensor plumbing that feature columns emit around embedding lookups:
//
// SparseReshape: the indices of a SparseTensor of dense shape input_shape
//   re-expressed for new_shape (same number of dense elements; one -1 in
//   new_shape is inferred), each index linearised row-major and split again.
// SparseFillEmptyRows: every row (first index) of the dense shape that has
//   no entry gets one, [row, 0, ..., 0] = default_value; entries are grouped
//   by row (rows ascending, input order within a row), empty_row_indicator
//   marks the filled rows and reverse_index_map[i] is where input entry i
//   went.

#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

class SparseReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& indices = context->input(0);
    const Tensor& input_shape = context->input(1);
    const Tensor& new_shape = context->input(2);
    OP_REQUIRES(context, indices.dims() == 2,
                errors::InvalidArgument("Input indices should be a matrix but "
                                        "received shape ",
                                        indices.shape().DebugString()));
    OP_REQUIRES(context, input_shape.dims() == 1,
                errors::InvalidArgument("Input shape should be a vector but "
                                        "received shape ",
                                        input_shape.shape().DebugString()));
    OP_REQUIRES(context, new_shape.dims() == 1,
                errors::InvalidArgument("Target shape should be a vector but "
                                        "received shape ",
                                        new_shape.shape().DebugString()));
    const int64_t n = indices.dim_size(0);
    const int64_t in_rank = input_shape.dim_size(0);
    const int64_t out_rank = new_shape.dim_size(0);
    OP_REQUIRES(context, indices.dim_size(1) == in_rank,
                errors::InvalidArgument(
                    "Input tensor rank must match input shape length, got ",
                    indices.dim_size(1), " and ", in_rank));
    const int64_t* in_dims = static_cast<const int64_t*>(input_shape.data());
    std::vector<int64_t> out_dims(
        static_cast<const int64_t*>(new_shape.data()),
        static_cast<const int64_t*>(new_shape.data()) + out_rank);
    int64_t dense_size = 1;
    for (int64_t d = 0; d < in_rank; ++d) dense_size *= in_dims[d];
    int64_t product = 1;
    int64_t unknown = -1;
    for (int64_t d = 0; d < out_rank; ++d) {
      if (out_dims[d] == -1) {
        OP_REQUIRES(context, unknown == -1,
                    errors::InvalidArgument(
                        "only one output dimension may be -1, not both ",
                        unknown, " and ", d));
        unknown = d;
      } else {
        OP_REQUIRES(context, out_dims[d] >= 0,
                    errors::InvalidArgument("size ", d,
                                            " must be non-negative, not ",
                                            out_dims[d]));
        product *= out_dims[d];
      }
    }
    if (unknown != -1) {
      OP_REQUIRES(context, product > 0,
                  errors::InvalidArgument(
                      "reshape cannot infer the missing input size for an "
                      "empty tensor unless all specified input sizes are "
                      "non-zero"));
      const int64_t missing = dense_size / product;
      OP_REQUIRES(context, product * missing == dense_size,
                  errors::InvalidArgument(
                      "Input to reshape is a SparseTensor with ", dense_size,
                      " dense values, but the requested shape requires a "
                      "multiple of ",
                      product, ". input_shape=",
                      ShapeString(std::vector<int64_t>(in_dims,
                                                       in_dims + in_rank)),
                      " output_shape=", ShapeString(out_dims)));
      out_dims[unknown] = missing;
      product *= missing;
    }
    OP_REQUIRES(context, product == dense_size,
                errors::InvalidArgument(
                    "Input to reshape is a tensor with ", dense_size,
                    " dense values, but the requested shape has ", product,
                    ". input_shape=",
                    ShapeString(std::vector<int64_t>(in_dims, in_dims + in_rank)),
                    " output_shape=", ShapeString(out_dims)));

    Tensor* out_indices = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({n, out_rank}), &out_indices));
    Tensor* out_shape = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                1, TensorShape({out_rank}), &out_shape));
    int64_t* shape_out = static_cast<int64_t*>(out_shape->data());
    for (int64_t d = 0; d < out_rank; ++d) shape_out[d] = out_dims[d];
    const int64_t* in = static_cast<const int64_t*>(indices.data());
    int64_t* out = static_cast<int64_t*>(out_indices->data());
    for (int64_t i = 0; i < n; ++i) {
      int64_t linear = 0;
      for (int64_t d = 0; d < in_rank; ++d) {
        linear = linear * in_dims[d] + in[i * in_rank + d];
      }
      for (int64_t d = out_rank - 1; d >= 0; --d) {
        out[i * out_rank + d] = linear % out_dims[d];
        linear /= out_dims[d];
      }
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("SparseReshape").Device(DEVICE_CPU),
                        SparseReshapeOp);

class SparseFillEmptyRowsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& indices = context->input(0);
    const Tensor& values = context->input(1);
    const Tensor& dense_shape = context->input(2);
    const Tensor& default_value = context->input(3);
    OP_REQUIRES(context, dense_shape.dims() == 1,
                errors::InvalidArgument("dense_shape must be a vector, saw: ",
                                        dense_shape.shape().DebugString()));
    OP_REQUIRES(context, indices.dims() == 2,
                errors::InvalidArgument("indices must be a matrix, saw: ",
                                        indices.shape().DebugString()));
    OP_REQUIRES(context, values.dims() == 1,
                errors::InvalidArgument("values must be a vector, saw: ",
                                        values.shape().DebugString()));
    OP_REQUIRES(context, default_value.dims() == 0,
                errors::InvalidArgument("default_value must be a scalar, saw: ",
                                        default_value.shape().DebugString()));
    const int64_t n = indices.dim_size(0);
    const int64_t rank = indices.dim_size(1);
    OP_REQUIRES(context, values.dim_size(0) == n,
                errors::InvalidArgument(
                    "The length of `values` (", values.dim_size(0),
                    ") must match the first dimension of `indices` (", n,
                    ")."));
    OP_REQUIRES(context, dense_shape.dim_size(0) == rank && rank > 0,
                errors::InvalidArgument(
                    "The length of `dense_shape` (", dense_shape.dim_size(0),
                    ") must match the second dimension of `indices` (", rank,
                    ")."));
    const int64_t dense_rows = static_cast<const int64_t*>(dense_shape.data())[0];
    OP_REQUIRES(context, dense_rows >= 0,
                errors::InvalidArgument("dense_shape[0] must be >= 0, got ",
                                        dense_rows));
    OP_REQUIRES(context, dense_rows > 0 || n == 0,
                errors::InvalidArgument(
                    "Received SparseTensor with dense_shape[0] = 0 but "
                    "indices.shape[0] = ",
                    n));
    const int64_t* in = static_cast<const int64_t*>(indices.data());

    // Entries per row, then each row's first output position.
    std::vector<int64_t> per_row(dense_rows, 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in[i * rank];
      OP_REQUIRES(context, row >= 0 && row < dense_rows,
                  errors::InvalidArgument("indices(", i, ", 0) is invalid: ",
                                          row, " >= ", dense_rows));
      ++per_row[row];
    }
    std::vector<int64_t> start(dense_rows, 0);
    int64_t total = 0;
    for (int64_t r = 0; r < dense_rows; ++r) {
      start[r] = total;
      total += per_row[r] == 0 ? 1 : per_row[r];
    }

    Tensor* out_indices = nullptr;
    Tensor* out_values = nullptr;
    Tensor* empty_rows = nullptr;
    Tensor* reverse = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({total, rank}), &out_indices));
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({total}),
                                                     &out_values));
    OP_REQUIRES_OK(context, context->allocate_output(
                                2, TensorShape({dense_rows}), &empty_rows));
    OP_REQUIRES_OK(context,
                   context->allocate_output(3, TensorShape({n}), &reverse));
    int64_t* out = static_cast<int64_t*>(out_indices->data());
    bool* empty = static_cast<bool*>(empty_rows->data());
    int64_t* rev = static_cast<int64_t*>(reverse->data());
    std::vector<int64_t> filled(dense_rows, 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in[i * rank];
      rev[i] = start[row] + filled[row]++;
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t d = 0; d < rank; ++d) out[rev[i] * rank + d] = in[i * rank + d];
    }
    for (int64_t r = 0; r < dense_rows; ++r) {
      empty[r] = per_row[r] == 0;
      if (empty[r]) {
        out[start[r] * rank] = r;
        for (int64_t d = 1; d < rank; ++d) out[start[r] * rank + d] = 0;
      }
    }
    const bool ok = array_ops::VisitMovableType(values.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* v = array_ops::RawData<T>(values);
      T* o = array_ops::RawData<T>(out_values);
      for (int64_t i = 0; i < n; ++i) o[rev[i]] = v[i];
      const T fill = array_ops::RawData<T>(default_value)[0];
      for (int64_t r = 0; r < dense_rows; ++r) {
        if (empty[r]) o[start[r]] = fill;
      }
    });
    OP_REQUIRES(context, ok, array_ops::UnsupportedDtype("SparseFillEmptyRows",
                                                         values.dtype()));
  }
};

REGISTER_KERNEL_BUILDER(Name("SparseFillEmptyRows")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        SparseFillEmptyRowsOp);

}  // namespace
}  // namespace tributary
