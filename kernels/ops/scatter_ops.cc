// Row-wise updates of a variable at given indices: the Scatter* ops on TF1
// reference variables, ResourceScatter* on resource variables, and
// ResourceGather(Nd), the read that tf.gather on a resource variable emits.
// updates has shape indices.shape + var.shape[1:] (or is a scalar applied to
// every indexed row); repeated indices apply in order.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {

// Note use_locking defaults to true here, false for the arithmetic ones.
REGISTER_OP("ScatterUpdate")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = true");

#define TRIB_REF_SCATTER_OP(NAME, TYPES)     \
  REGISTER_OP(NAME)                          \
      .Input("ref: Ref(T)")                  \
      .Input("indices: Tindices")            \
      .Input("updates: T")                   \
      .Output("output_ref: Ref(T)")          \
      .Attr("T: " TYPES)                     \
      .Attr("Tindices: {int32, int64}")      \
      .Attr("use_locking: bool = false")

TRIB_REF_SCATTER_OP("ScatterAdd", "numbertype");
TRIB_REF_SCATTER_OP("ScatterSub", "numbertype");
TRIB_REF_SCATTER_OP("ScatterMul", "numbertype");
TRIB_REF_SCATTER_OP("ScatterDiv", "numbertype");
TRIB_REF_SCATTER_OP("ScatterMin", "{half, bfloat16, float, double, int32, int64}");
TRIB_REF_SCATTER_OP("ScatterMax", "{half, bfloat16, float, double, int32, int64}");
#undef TRIB_REF_SCATTER_OP

#define TRIB_RESOURCE_SCATTER_OP(NAME, TYPES) \
  REGISTER_OP(NAME)                           \
      .Input("resource: resource")            \
      .Input("indices: Tindices")             \
      .Input("updates: dtype")                \
      .Attr("dtype: " TYPES)                  \
      .Attr("Tindices: {int32, int64}")       \
      .SetIsStateful()

TRIB_RESOURCE_SCATTER_OP("ResourceScatterAdd", "numbertype");
TRIB_RESOURCE_SCATTER_OP("ResourceScatterSub", "numbertype");
TRIB_RESOURCE_SCATTER_OP("ResourceScatterMul", "numbertype");
TRIB_RESOURCE_SCATTER_OP("ResourceScatterDiv", "numbertype");
TRIB_RESOURCE_SCATTER_OP("ResourceScatterMin", "numbertype");
TRIB_RESOURCE_SCATTER_OP("ResourceScatterMax", "numbertype");
TRIB_RESOURCE_SCATTER_OP("ResourceScatterUpdate", "type");
#undef TRIB_RESOURCE_SCATTER_OP

// Updates by index tuples (tf.compat.v1.scatter_nd_update, v.scatter_nd_add,
// ...): indices [..., K] name slices of the variable, updates hold
// indices.shape[:-1] + var.shape[K:].
#define TRIB_REF_SCATTER_ND_OP(NAME, TYPES, LOCKING)    \
  REGISTER_OP(NAME)                                     \
      .Input("ref: Ref(T)")                             \
      .Input("indices: Tindices")                       \
      .Input("updates: T")                              \
      .Output("output_ref: Ref(T)")                     \
      .Attr("T: " TYPES)                                \
      .Attr("Tindices: {int32, int64}")                 \
      .Attr("use_locking: bool = " LOCKING)             \
      .Attr("bad_indices_policy: string = ''")

TRIB_REF_SCATTER_ND_OP("ScatterNdUpdate", "type", "true");
TRIB_REF_SCATTER_ND_OP("ScatterNdAdd", "numbertype", "false");
TRIB_REF_SCATTER_ND_OP("ScatterNdSub", "numbertype", "false");
TRIB_REF_SCATTER_ND_OP("ScatterNdMin", "numbertype", "false");
TRIB_REF_SCATTER_ND_OP("ScatterNdMax", "numbertype", "false");
#undef TRIB_REF_SCATTER_ND_OP

#define TRIB_RESOURCE_SCATTER_ND_OP(NAME)         \
  REGISTER_OP(NAME)                               \
      .Input("ref: resource")                     \
      .Input("indices: Tindices")                 \
      .Input("updates: T")                        \
      .Attr("T: type")                            \
      .Attr("Tindices: {int32, int64}")           \
      .Attr("use_locking: bool = true")           \
      .Attr("bad_indices_policy: string = ''")    \
      .SetIsStateful()

TRIB_RESOURCE_SCATTER_ND_OP("ResourceScatterNdUpdate");
TRIB_RESOURCE_SCATTER_ND_OP("ResourceScatterNdAdd");
TRIB_RESOURCE_SCATTER_ND_OP("ResourceScatterNdSub");
TRIB_RESOURCE_SCATTER_ND_OP("ResourceScatterNdMin");
TRIB_RESOURCE_SCATTER_ND_OP("ResourceScatterNdMax");
#undef TRIB_RESOURCE_SCATTER_ND_OP

// output = var[indices] (rows of the variable), shape indices.shape +
// var.shape[1:].
REGISTER_OP("ResourceGather")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Output("output: dtype")
    .Attr("batch_dims: int = 0")
    .Attr("validate_indices: bool = true")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful();

// output = gather_nd(var, indices).
REGISTER_OP("ResourceGatherNd")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful();

}  // namespace tributary

// clang-format on
