// SaveV2 and RestoreV2: tensors to and from a TensorFlow V2 checkpoint (a
// tensor bundle, common/checkpoint) under a path prefix. Paths are resolved on
// the filesystem of the process running the kernel, so on a cluster each task
// saves the variables placed on it to its own disk, as TensorFlow does.
//
// RestoreV2 reads and checks every requested tensor before it produces any
// output: when one fails (missing, corrupted, wrong dtype or shape), the step
// fails with that error and none of the Assign ops waiting on its outputs run,
// so no variable is left half restored.
#include <memory>
#include <string>
#include <vector>

#include "common/checkpoint/bundle_reader.h"
#include "common/checkpoint/bundle_writer.h"
#include "common/checkpoint/tensor_slice.h"
#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

// The checks both kernels share on prefix, tensor_names and shape_and_slices.
absl::Status ValidateInputs(const Tensor& prefix, const Tensor& names,
                            const Tensor& slices, int64_t num_tensors) {
  if (prefix.NumElements() != 1) {
    return errors::InvalidArgument(
        "Input prefix should have a single element, got ",
        prefix.NumElements(), " elements");
  }
  if (names.dims() != 1 || slices.dims() != 1) {
    return errors::InvalidArgument(
        "Input tensor_names and shape_and_slices should be 1-D tensors, got ",
        names.shape().DebugString(), " and ", slices.shape().DebugString());
  }
  if (names.NumElements() != num_tensors ||
      slices.NumElements() != num_tensors) {
    return errors::InvalidArgument(
        "Got ", names.NumElements(), " tensor names and ",
        slices.NumElements(), " shape_and_slices for ", num_tensors,
        " tensors");
  }
  return absl::OkStatus();
}

class SaveV2Op : public OpKernel {
 public:
  explicit SaveV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& prefix = ctx->input(0);
    const Tensor& names = ctx->input(1);
    const Tensor& slices = ctx->input(2);
    const int num_tensors = ctx->num_inputs() - 3;
    OP_REQUIRES_OK(ctx, ValidateInputs(prefix, names, slices, num_tensors));
    const std::string& path = prefix.flat<std::string>()(0);
    // Only under the task's --allowed-path directories (docs/limits.md).
    OP_REQUIRES_OK(ctx, ctx->CheckCheckpointAccess(path));
    BundleWriter writer(path);
    OP_REQUIRES_OK(ctx, writer.status());
    for (int i = 0; i < num_tensors; ++i) {
      const std::string& name = names.flat<std::string>()(i);
      const std::string& spec = slices.flat<std::string>()(i);
      const Tensor& value = ctx->input(3 + i);
      if (spec.empty()) {
        OP_REQUIRES_OK(ctx, writer.Add(name, value));
        continue;
      }
      absl::StatusOr<ShapeAndSlice> parsed = ParseShapeAndSlice(spec);
      OP_REQUIRES_OK(ctx, parsed.status());
      OP_REQUIRES(
          ctx, parsed->slice_shape == value.shape(),
          errors::InvalidArgument(
              "Slice in shape_and_slice specification does not match the "
              "shape of the tensor to save: ",
              spec, ", tensor: ", value.shape().DebugString(), " (", name,
              ")"));
      OP_REQUIRES_OK(ctx, writer.AddSlice(name, parsed->full_shape,
                                          parsed->slice, value));
    }
    OP_REQUIRES_OK(ctx, writer.Finish());
  }
};

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& prefix = ctx->input(0);
    const Tensor& names = ctx->input(1);
    const Tensor& slices = ctx->input(2);
    const int num_tensors = static_cast<int>(dtypes_.size());
    OP_REQUIRES_OK(ctx, ValidateInputs(prefix, names, slices, num_tensors));
    const std::string& path = prefix.flat<std::string>()(0);
    OP_REQUIRES_OK(ctx, ctx->CheckCheckpointAccess(path));
    absl::StatusOr<std::unique_ptr<BundleReader>> reader =
        BundleReader::Open(path);
    OP_REQUIRES_OK(ctx, reader.status());
    Allocator* allocator = ctx->get_allocator(AllocatorAttributes());
    std::vector<Tensor> restored;
    restored.reserve(num_tensors);
    for (int i = 0; i < num_tensors; ++i) {
      absl::StatusOr<Tensor> t =
          Restore(**reader, names.flat<std::string>()(i),
                  slices.flat<std::string>()(i), dtypes_[i], allocator);
      OP_REQUIRES_OK(ctx, t.status());
      restored.push_back(*std::move(t));
    }
    // Only now that everything is read and checked.
    for (int i = 0; i < num_tensors; ++i) {
      ctx->set_output(i, std::move(restored[i]));
    }
  }

 private:
  static absl::StatusOr<Tensor> Restore(const BundleReader& reader,
                                        const std::string& name,
                                        const std::string& spec,
                                        DataType dtype, Allocator* allocator) {
    TRIB_ASSIGN_OR_RETURN(const tensorflow::BundleEntryProto entry,
                          reader.Entry(name));
    if (entry.dtype() != dtype) {
      return errors::InvalidArgument(
          "tensor_name = ", name, "; expected dtype ", DataTypeString(dtype),
          " does not equal original dtype ", DataTypeString(entry.dtype()),
          " (checkpoint ", reader.prefix(), ")");
    }
    if (spec.empty()) return reader.Lookup(name, allocator);
    TRIB_ASSIGN_OR_RETURN(const ShapeAndSlice parsed, ParseShapeAndSlice(spec));
    TRIB_ASSIGN_OR_RETURN(const TensorShape stored,
                          TensorShape::FromProto(entry.shape()));
    if (stored != parsed.full_shape) {
      return errors::InvalidArgument(
          "tensor_name = ", name, "; shape in shape_and_slice spec ",
          parsed.full_shape.DebugString(),
          " does not match the shape stored in checkpoint: ",
          stored.DebugString(), " (checkpoint ", reader.prefix(), ")");
    }
    return reader.LookupSlice(name, parsed.slice, allocator);
  }

  DataTypeVector dtypes_;
};

REGISTER_KERNEL_BUILDER(Name("SaveV2").Device(DEVICE_CPU), SaveV2Op);
REGISTER_KERNEL_BUILDER(Name("RestoreV2").Device(DEVICE_CPU), RestoreV2Op);

}  // namespace
}  // namespace tributary
