// GPU kernels (DEVICE_GPU) beyond the elementwise ones of cwise_ops_gpu.cc:
//   Cast                      SrcT, DstT in {half, float, double}
//   Fill, ZerosLike, OnesLike T in {half, float, double}; Fill's dims on the
//                             host, its value read on the device
//   Transpose                 T in {half, float, double}; perm on the host
//   Sum Mean Max Min Prod     T in {float, double}; reduction_indices on
//                             the host (Tidx int32 or int64)
//   ArgMax, ArgMin            T in {float, double}, output_type int64 only
//                             (an int32 output would live in host memory);
//                             dimension on the host
//   Softmax, LogSoftmax       T in {float, double}, over the last dimension
//   SoftmaxCrossEntropyWithLogits        T in {float, double}
//   SparseSoftmaxCrossEntropyWithLogits  T in {float, double}, Tlabels int64
//                             only (int32 labels would live in host memory)
//
// Each kernel validates its inputs as the CPU kernel of the same op does
// (same checks, same messages; ReductionHelper and array_util are shared
// with the CPU kernels), allocates its outputs and enqueues CUDA kernels
// from gpu_more_kernels.cu on the GPU's compute stream; nothing waits for
// the GPU here. Where the CPU kernel returns its input (identity Cast and
// Transpose, reductions over size-1 axes only) the buffer is shared the
// same way. One difference: SparseSoftmaxCrossEntropyWithLogits cannot
// check its labels without copying them to the host, so an out-of-range
// label gives NaN loss and backprop for its row instead of the CPU's
// InvalidArgument, as TensorFlow's GPU kernel does.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/device_type.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "devices/gpu/gpu_device.h"
#include "devices/gpu/gpu_launch.h"
#include "kernels/array/array_util.h"
#include "kernels/array/transpose_plan.h"
#include "kernels/math/gpu_more_geometry.h"
#include "kernels/math/gpu_more_kernels_gpu.h"
#include "kernels/math/reduction_helper.h"
#include "kernels/nn/xent_shape.h"

namespace tributary {
namespace {

// ---- Launching ------------------------------------------------------------

absl::Status NotOnGpu(OpKernelContext* ctx) {
  return errors::Internal("GPU kernel run on a non-GPU device ",
                          ctx->device()->name());
}

// Enqueues `kernel` with `config` on the compute stream.
absl::Status Launch(OpKernelContext* ctx, const std::string& kernel,
                    const GpuLaunchConfig& config,
                    std::initializer_list<void*> args) {
  GpuDevice* gpu = GpuDevice::FromDeviceBase(ctx->device());
  if (gpu == nullptr) return NotOnGpu(ctx);
  return LaunchGpuKernel(gpu, fatbin::gpu_more_kernels(), kernel.c_str(),
                         config, args);
}

// Enqueues a grid-stride `kernel` sized for `n` elements.
absl::Status LaunchElementwise(OpKernelContext* ctx, const std::string& kernel,
                               int64_t n, std::initializer_list<void*> args) {
  GpuDevice* gpu = GpuDevice::FromDeviceBase(ctx->device());
  if (gpu == nullptr) return NotOnGpu(ctx);
  return LaunchGpuKernel(gpu, fatbin::gpu_more_kernels(), kernel.c_str(),
                         GpuLaunchConfigFor(gpu, n), args);
}

// A launch of `units` blocks (rows, outputs), each with `work` elements:
// a power-of-two block of 32 to 256 threads (the kernels' shared buffers
// hold 256), fewer for short rows so few threads idle. Blocks stride over
// the units past the cap.
GpuLaunchConfig BlockConfig(int64_t units, int64_t work) {
  GpuLaunchConfig config;
  unsigned int threads = 32;
  while (threads < 256 && threads < work) threads *= 2;
  config.threads_per_block = threads;
  config.blocks = static_cast<unsigned int>(
      std::max<int64_t>(1, std::min<int64_t>(units, 65535)));
  return config;
}

// Kernel-name suffix of a numeric dtype.
const char* TypeSuffix(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
      return "_f16";
    case DT_FLOAT:
      return "_f32";
    case DT_DOUBLE:
      return "_f64";
    default:
      return "_unsupported";
  }
}

// Kernel-name suffix of the kernels that move elements as bits.
const char* WidthSuffix(DataType dtype) {
  switch (DataTypeSize(dtype)) {
    case 2:
      return "_u16";
    case 4:
      return "_u32";
    default:
      return "_u64";
  }
}

// Writes `value` (a T of out's dtype) into every element of `out`.
template <typename T>
absl::Status SetAll(OpKernelContext* ctx, Tensor* out, T value) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "set_* kernels move 2, 4 or 8 bytes");
  using Bits = std::conditional_t<
      sizeof(T) == 2, uint16_t,
      std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof(bits));
  int64_t n = out->NumElements();
  if (n == 0) return absl::OkStatus();
  void* o = out->data();
  return LaunchElementwise(ctx, absl::StrCat("set", WidthSuffix(out->dtype())),
                           n, {&bits, &o, &n});
}

// ---- Cast -------------------------------------------------------------------

class GpuCastOp : public OpKernel {
 public:
  explicit GpuCastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src = DT_INVALID;
    DataType dst = DT_INVALID;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst));
    identity_ = src == dst;
    // The registration allows half, float and double only.
    kernel_ = absl::StrCat("cast", TypeSuffix(src), "_to", TypeSuffix(dst));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (identity_) {
      // Tensors are immutable here: sharing the buffer is a valid copy.
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    int64_t n = in.NumElements();
    if (n == 0) return;
    const void* x = in.data();
    void* y = out->data();
    OP_REQUIRES_OK(ctx, LaunchElementwise(ctx, kernel_, n, {&x, &y, &n}));
  }

 private:
  bool identity_ = false;
  std::string kernel_;  // cast_f32_to_f64 and so on
};

// ---- Fill, ZerosLike, OnesLike -------------------------------------------

class GpuFillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    OP_REQUIRES(
        ctx, array_ops::IsLegacyVector(dims.shape()),
        errors::InvalidArgument("dims must represent a vector, got shape ",
                                dims.shape().DebugString()));
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(
        ctx, array_ops::IsLegacyScalar(value.shape()),
        errors::InvalidArgument("value must represent a scalar, got shape ",
                                value.shape().DebugString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx,
                   array_ops::MakeShape(array_ops::IndexValues(dims), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int64_t n = out->NumElements();
    if (n == 0) return;
    // The value stays in device memory: the kernel reads value[0].
    const void* v = value.data();
    void* o = out->data();
    OP_REQUIRES_OK(
        ctx, LaunchElementwise(
                 ctx, absl::StrCat("fill_from", WidthSuffix(out->dtype())), n,
                 {&v, &o, &n}));
  }
};

// ZerosLike (kOne false) and OnesLike (kOne true).
template <typename T, bool kOne>
class GpuConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    OP_REQUIRES_OK(ctx, SetAll<T>(ctx, out, kOne ? T(1.0f) : T(0.0f)));
  }
};

// ---- Transpose --------------------------------------------------------------

class GpuTransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    // The CPU kernel's checks, messages and buffer sharing.
    absl::StatusOr<TransposePlan> plan = PlanTranspose(input, ctx->input(1));
    OP_REQUIRES_OK(ctx, plan.status());
    bool done = false;
    OP_REQUIRES_OK(ctx, TransposeWithoutMoving(ctx, input, *plan, &done));
    if (done) return;
    const std::vector<int>& perm = plan->perm;
    const TensorShape& shape = plan->shape;
    const int rank = input.dims();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int64_t n = out->NumElements();
    if (n == 0) return;
    // Output dimensions of size 1 contribute nothing to the offset: drop
    // them so more ranks fit the geometry.
    const absl::InlinedVector<int64_t, 8> in_strides =
        array_ops::RowMajorStrides(input.shape());
    GpuTransposeGeometry g = {};
    for (int i = 0; i < rank; ++i) {
      if (shape.dim_size(i) == 1) continue;
      OP_REQUIRES(ctx, g.rank < kGpuMoreMaxDims,
                  errors::Unimplemented("Transpose on GPU supports at most ",
                                        kGpuMoreMaxDims,
                                        " dimensions of size > 1, got shape ",
                                        input.shape().DebugString()));
      g.out_dims[g.rank] = shape.dim_size(i);
      g.in_strides[g.rank] = in_strides[perm[i]];
      ++g.rank;
    }
    const void* x = input.data();
    void* y = out->data();
    OP_REQUIRES_OK(
        ctx, LaunchElementwise(
                 ctx, absl::StrCat("transpose", WidthSuffix(input.dtype())), n,
                 {&x, &y, &n, &g}));
  }
};

// ---- Reductions -------------------------------------------------------------

enum class Reduction { kSum, kMean, kMax, kMin, kProd };

const char* ReductionName(Reduction r) {
  switch (r) {
    case Reduction::kSum:
      return "sum";
    case Reduction::kMean:
      return "mean";
    case Reduction::kMax:
      return "max";
    case Reduction::kMin:
      return "min";
    case Reduction::kProd:
      return "prod";
  }
  return "";
}

// The value of a reduction over no elements (reduction_ops.h).
template <typename T>
T EmptyReduction(Reduction r) {
  switch (r) {
    case Reduction::kSum:
      return T(0);
    case Reduction::kMean:
      return std::numeric_limits<T>::quiet_NaN();
    case Reduction::kProd:
      return T(1);
    case Reduction::kMax:
      return -std::numeric_limits<T>::infinity();
    case Reduction::kMin:
      return std::numeric_limits<T>::infinity();
  }
  return T(0);
}

template <typename T, Reduction kOp>
class GpuReductionOp : public OpKernel {
 public:
  explicit GpuReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
    const char* suffix = TypeSuffix(DataTypeToEnum<T>::v());
    thread_kernel_ =
        absl::StrCat("reduce_", ReductionName(kOp), "_thread", suffix);
    block_kernel_ =
        absl::StrCat("reduce_", ReductionName(kOp), "_block", suffix);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    ReductionHelper helper;
    OP_REQUIRES_OK(ctx, helper.Simplify(data, axes, keep_dims_));

    if (helper.nothing_reduced()) {
      // Only size-1 axes: the input, reshaped.
      Tensor out;
      OP_REQUIRES(ctx, out.CopyFrom(data, helper.out_shape()),
                  errors::Internal("Error during reduction copy."));
      ctx->set_output(0, out);
      return;
    }
    const int n = helper.ndims();
    const bool first = helper.reduce_first_axis();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, helper.out_shape(), &out));
    int64_t n_out = out->NumElements();
    if (n_out == 0) return;
    if (data.NumElements() == 0) {
      OP_REQUIRES_OK(ctx, SetAll<T>(ctx, out, EmptyReduction<T>(kOp)));
      return;
    }
    OP_REQUIRES(
        ctx, n <= kGpuMoreMaxDims,
        errors::Unimplemented("Reduction on GPU of shape ",
                              data.shape().DebugString(), " needs more than ",
                              kGpuMoreMaxDims, " collapsed dimensions"));

    // The collapsed shape alternates reduced and kept dimensions, starting
    // with a reduced one iff `first`; split it by kind, keeping each
    // dimension's row-major input stride.
    const std::vector<int64_t>& dims = helper.data_reshape();
    std::vector<int64_t> strides(n);
    int64_t stride = 1;
    for (int k = n - 1; k >= 0; --k) {
      strides[k] = stride;
      stride *= dims[k];
    }
    GpuReduceGeometry g = {};
    for (int k = 0; k < n; ++k) {
      const bool reduced = (k % 2 == 0) == first;
      if (reduced) {
        g.reduced_dims[g.reduced_rank] = dims[k];
        g.reduced_strides[g.reduced_rank] = strides[k];
        ++g.reduced_rank;
      } else {
        g.kept_dims[g.kept_rank] = dims[k];
        g.kept_strides[g.kept_rank] = strides[k];
        ++g.kept_rank;
      }
    }
    int64_t count = data.NumElements() / n_out;
    const bool innermost_reduced = ((n - 1) % 2 == 0) == first;
    const void* x = data.data();
    void* y = out->data();
    // A block per output when its elements are contiguous (the block reads
    // them coalesced) or when there are too few outputs to fill the GPU;
    // otherwise a thread per output, neighbouring threads reading
    // neighbouring kept elements.
    if (innermost_reduced || n_out < 1024) {
      OP_REQUIRES_OK(ctx, Launch(ctx, block_kernel_, BlockConfig(n_out, count),
                                 {&x, &y, &n_out, &g, &count}));
    } else {
      OP_REQUIRES_OK(ctx, LaunchElementwise(ctx, thread_kernel_, n_out,
                                            {&x, &y, &n_out, &g, &count}));
    }
  }

 private:
  bool keep_dims_ = false;
  std::string thread_kernel_;
  std::string block_kernel_;
};

// ---- ArgMax, ArgMin
// -----------------------------------------------------------

template <typename T, bool kMax>
class GpuArgOp : public OpKernel {
 public:
  explicit GpuArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    kernel_ = absl::StrCat(kMax ? "argmax" : "argmin",
                           TypeSuffix(DataTypeToEnum<T>::v()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    // The CPU kernel's checks and messages (argminmax.cc).
    absl::StatusOr<ArgReductionShape> shape =
        ArgReduction(input, ctx->input(1));
    OP_REQUIRES_OK(ctx, shape.status());
    const int axis = shape->axis;
    const TensorShape& out_shape = shape->out_shape;
    int64_t inner = shape->inner;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t n_out = out->NumElements();
    if (n_out == 0) return;
    int64_t axis_size = input.dim_size(axis);
    const void* x = input.data();
    void* y = out->data();
    OP_REQUIRES_OK(ctx,
                   LaunchElementwise(ctx, kernel_, n_out,
                                     {&x, &y, &n_out, &axis_size, &inner}));
  }

 private:
  std::string kernel_;
};

// ---- Softmax, LogSoftmax ---------------------------------------------------

template <typename T, bool kLog>
class GpuSoftmaxOp : public OpKernel {
 public:
  explicit GpuSoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    kernel_ = absl::StrCat(kLog ? "log_softmax" : "softmax",
                           TypeSuffix(DataTypeToEnum<T>::v()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, logits.dims() >= 1,
                errors::InvalidArgument("logits must have >= 1 dimension, got ",
                                        logits.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &output));
    if (logits.NumElements() == 0) return;
    int64_t classes = logits.dim_size(logits.dims() - 1);
    int64_t rows = logits.NumElements() / classes;
    const void* x = logits.data();
    void* y = output->data();
    OP_REQUIRES_OK(ctx, Launch(ctx, kernel_, BlockConfig(rows, classes),
                               {&x, &y, &rows, &classes}));
  }

 private:
  std::string kernel_;
};

// ---- SoftmaxCrossEntropyWithLogits ---------------------------------------

// The element strides of `in` read as the broadcast [rows, cols]: 0 along
// a dimension of size 1, so broadcasting needs no materialized copy.
void BroadcastStrides(const Tensor& in, int64_t* row_stride,
                      int64_t* col_stride) {
  int64_t rows = 0;
  int64_t cols = 0;
  AsMatrixDims(in.shape(), &rows, &cols);
  *row_stride = rows == 1 ? 0 : cols;
  *col_stride = cols == 1 ? 0 : 1;
}

template <typename T>
class GpuSoftmaxXentOp : public OpKernel {
 public:
  explicit GpuSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    kernel_ = absl::StrCat("xent", TypeSuffix(DataTypeToEnum<T>::v()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    // The CPU kernel's shapes and messages (kernels/nn/xent_shape.h).
    absl::StatusOr<TensorShape> xent_shape =
        XentShape(logits.shape(), labels.shape());
    OP_REQUIRES_OK(ctx, xent_shape.status());
    const TensorShape& shape = *xent_shape;
    int64_t batch = shape.dim_size(0);
    int64_t classes = shape.dim_size(1);
    Tensor* loss_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {batch}, &loss_out));
    Tensor* backprop_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &backprop_out));
    if (batch == 0) return;
    if (classes == 0) {
      // A sum over no classes.
      OP_REQUIRES_OK(ctx, SetAll<T>(ctx, loss_out, T(0)));
      return;
    }
    int64_t x_row = 0, x_col = 0, y_row = 0, y_col = 0;
    BroadcastStrides(logits, &x_row, &x_col);
    BroadcastStrides(labels, &y_row, &y_col);
    const void* x = logits.data();
    const void* y = labels.data();
    void* loss = loss_out->data();
    void* backprop = backprop_out->data();
    OP_REQUIRES_OK(ctx, Launch(ctx, kernel_, BlockConfig(batch, classes),
                               {&x, &y, &loss, &backprop, &batch, &classes,
                                &x_row, &x_col, &y_row, &y_col}));
  }

 private:
  std::string kernel_;
};

template <typename T>
class GpuSparseSoftmaxXentOp : public OpKernel {
 public:
  explicit GpuSparseSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    kernel_ = absl::StrCat("sparse_xent", TypeSuffix(DataTypeToEnum<T>::v()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, logits.dims() == 2,
                errors::InvalidArgument("logits must be 2-D, but got shape ",
                                        logits.shape().DebugString()));
    OP_REQUIRES(ctx, labels.dims() == 1,
                errors::InvalidArgument("labels must be 1-D, but got shape ",
                                        labels.shape().DebugString()));
    OP_REQUIRES(ctx, logits.dim_size(0) == labels.dim_size(0),
                errors::InvalidArgument(
                    "logits and labels must have the same first dimension, "
                    "got logits shape ",
                    logits.shape().DebugString(), " and labels shape ",
                    labels.shape().DebugString()));
    OP_REQUIRES(ctx, logits.dim_size(1) > 0,
                errors::InvalidArgument(
                    "Must have at least one class, but got logits shape ",
                    logits.shape().DebugString()));
    int64_t batch = logits.dim_size(0);
    int64_t classes = logits.dim_size(1);
    Tensor* loss_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {batch}, &loss_out));
    Tensor* backprop_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, logits.shape(), &backprop_out));
    if (batch == 0) return;
    // No label range check here (the labels are in device memory): the
    // kernel writes NaN into the rows of out-of-range labels.
    const void* x = logits.data();
    const void* y = labels.data();
    void* loss = loss_out->data();
    void* backprop = backprop_out->data();
    OP_REQUIRES_OK(ctx, Launch(ctx, kernel_, BlockConfig(batch, classes),
                               {&x, &y, &loss, &backprop, &batch, &classes}));
  }

 private:
  std::string kernel_;
};

// ---- Registrations ----------------------------------------------------------

constexpr DataType kCastTypes[] = {DT_HALF, DT_FLOAT, DT_DOUBLE};
REGISTER_KERNEL_BUILDER(Name("Cast")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("SrcT", kCastTypes)
                            .TypeConstraint("DstT", kCastTypes),
                        GpuCastOp);

// Index arguments read on the host (dims, perm, axes) are int32 only: an
// int64 one produced on the GPU reached the kernel in device memory on the
// H200 (the same-device copy to host memory is a known bug, issue 12), and
// int32 always lives in host memory on a GPU. int64 index graphs run on the
// CPU under allow_soft_placement.
#define TRIB_REGISTER_MOVE(T)                                           \
  REGISTER_KERNEL_BUILDER(Name("Fill")                                  \
                              .Device(DEVICE_GPU)                       \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint("index_type", {DT_INT32}) \
                              .HostMemory("dims"),                      \
                          GpuFillOp);                                   \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("ZerosLike").Device(DEVICE_GPU).TypeConstraint<T>("T"),      \
      GpuConstantLikeOp<T, false>);                                     \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("OnesLike").Device(DEVICE_GPU).TypeConstraint<T>("T"),       \
      GpuConstantLikeOp<T, true>);                                      \
  REGISTER_KERNEL_BUILDER(Name("Transpose")                             \
                              .Device(DEVICE_GPU)                       \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint("Tperm", {DT_INT32})      \
                              .HostMemory("perm"),                      \
                          GpuTransposeOp)
TRIB_REGISTER_MOVE(Eigen::half);
TRIB_REGISTER_MOVE(float);
TRIB_REGISTER_MOVE(double);
#undef TRIB_REGISTER_MOVE

#define TRIB_REGISTER_REDUCTION(OP, KIND, T)                      \
  REGISTER_KERNEL_BUILDER(Name(OP)                                \
                              .Device(DEVICE_GPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint("Tidx", {DT_INT32}) \
                              .HostMemory("reduction_indices"),   \
                          GpuReductionOp<T, Reduction::KIND>)

#define TRIB_REGISTER_NUMERIC(T)                                      \
  TRIB_REGISTER_REDUCTION("Sum", kSum, T);                            \
  TRIB_REGISTER_REDUCTION("Mean", kMean, T);                          \
  TRIB_REGISTER_REDUCTION("Max", kMax, T);                            \
  TRIB_REGISTER_REDUCTION("Min", kMin, T);                            \
  TRIB_REGISTER_REDUCTION("Prod", kProd, T);                          \
  REGISTER_KERNEL_BUILDER(Name("ArgMax")                              \
                              .Device(DEVICE_GPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<int64_t>("output_type") \
                              .TypeConstraint("Tidx", {DT_INT32})     \
                              .HostMemory("dimension"),               \
                          GpuArgOp<T, true>);                         \
  REGISTER_KERNEL_BUILDER(Name("ArgMin")                              \
                              .Device(DEVICE_GPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<int64_t>("output_type") \
                              .TypeConstraint("Tidx", {DT_INT32})     \
                              .HostMemory("dimension"),               \
                          GpuArgOp<T, false>);                        \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("Softmax").Device(DEVICE_GPU).TypeConstraint<T>("T"),      \
      GpuSoftmaxOp<T, false>);                                        \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("LogSoftmax").Device(DEVICE_GPU).TypeConstraint<T>("T"),   \
      GpuSoftmaxOp<T, true>);                                         \
  REGISTER_KERNEL_BUILDER(Name("SoftmaxCrossEntropyWithLogits")       \
                              .Device(DEVICE_GPU)                     \
                              .TypeConstraint<T>("T"),                \
                          GpuSoftmaxXentOp<T>);                       \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_GPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<int64_t>("Tlabels"),    \
                          GpuSparseSoftmaxXentOp<T>)
TRIB_REGISTER_NUMERIC(float);
TRIB_REGISTER_NUMERIC(double);
#undef TRIB_REGISTER_NUMERIC
#undef TRIB_REGISTER_REDUCTION

}  // namespace
}  // namespace tributary
