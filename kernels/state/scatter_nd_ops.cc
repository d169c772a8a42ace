// ScatterNdUpdate/Add/Sub/Min/Max on TF1 reference variables and
// ResourceScatterNdUpdate/Add/Sub/Min/Max on resource variables
// (tf.compat.v1.scatter_nd_update, v.scatter_nd_add, ...): the slices named
// by index tuples are combined with the updates in place
// (kernels/array/scatter_nd.h has the rule, TensorFlow's checks and
// messages). The ref ops hold the variable's lock with use_locking (default
// true); the resource ops always hold it, and make a shared buffer private
// first. A resource never created is NOT_FOUND, as in TensorFlow.

#include <cstdint>

#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/scatter_nd.h"
#include "kernels/state/variable_exists.h"
#include "kernels/training/training_op_helpers.h"

namespace tributary {
namespace {

using array_ops::ScatterNdKind;

// T: the element type, or for kUpdate the movement type of its width.
template <typename T, ScatterNdKind kKind>
class VariableScatterNdOp : public OpKernel {
 public:
  explicit VariableScatterNdOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   array_ops::GetIgnoreBadIndices(context, &ignore_bad_));
    OP_REQUIRES_OK(context, context->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* context) override {
    OP_REQUIRES_OK(context, CheckVariableExists(context, 0));
    VariableInputs vars(context, use_locking_);
    OP_REQUIRES_OK(context, vars.Acquire({0}));
    const Tensor& indices = context->input(1);
    const Tensor& updates = context->input(2);
    Tensor params;
    OP_REQUIRES_OK(context, vars.GetTensor(0, updates.dtype(), &params));
    array_ops::ScatterNdPlan plan;
    OP_REQUIRES_OK(context,
                   array_ops::PlanScatterNd(params.shape(), indices, updates,
                                            ignore_bad_, &plan));
    array_ops::ApplyScatterNd<T, kKind>(plan, array_ops::RawData<T>(updates),
                                        array_ops::RawData<T>(&params));
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool ignore_bad_ = false;
  bool use_locking_ = true;
};

#define TRIB_REGISTER_BOTH(REF_NAME, T_CONSTRAINT, ...)                     \
  REGISTER_KERNEL_BUILDER(Name(REF_NAME)                                   \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint("T", T_CONSTRAINT)           \
                              .TypeConstraint("Tindices",                  \
                                              {DT_INT32, DT_INT64}),       \
                          __VA_ARGS__);                                    \
  REGISTER_KERNEL_BUILDER(Name("Resource" REF_NAME)                        \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint("T", T_CONSTRAINT)           \
                              .TypeConstraint("Tindices",                  \
                                              {DT_INT32, DT_INT64}),       \
                          __VA_ARGS__)

#define TRIB_REGISTER_ADD_SUB(T)                                      \
  TRIB_REGISTER_BOTH("ScatterNdAdd", DataTypeToEnum<T>::v(),          \
                     VariableScatterNdOp<T, ScatterNdKind::kAdd>);  \
  TRIB_REGISTER_BOTH("ScatterNdSub", DataTypeToEnum<T>::v(),          \
                     VariableScatterNdOp<T, ScatterNdKind::kSub>)
#define TRIB_REGISTER_REAL(T)                                         \
  TRIB_REGISTER_ADD_SUB(T);                                           \
  TRIB_REGISTER_BOTH("ScatterNdMin", DataTypeToEnum<T>::v(),          \
                     VariableScatterNdOp<T, ScatterNdKind::kMin>);  \
  TRIB_REGISTER_BOTH("ScatterNdMax", DataTypeToEnum<T>::v(),          \
                     VariableScatterNdOp<T, ScatterNdKind::kMax>)

TRIB_FOR_EACH_SCATTER_ND_NUMBER(TRIB_REGISTER_REAL, TRIB_REGISTER_ADD_SUB);

#define TRIB_REGISTER_UPDATE(DTYPE, MOVE) \
  TRIB_REGISTER_BOTH("ScatterNdUpdate", DTYPE, \
                     VariableScatterNdOp<MOVE, ScatterNdKind::kUpdate>)

TRIB_FOR_EACH_MOVABLE_DTYPE(TRIB_REGISTER_UPDATE);

}  // namespace
}  // namespace tributary
