// Fuzz target: TensorProto -> Tensor (Tensor::FromProto: feeds, Const values,
// checkpoint entries). Allocation goes through a 64 MiB MemoryBudget, as
// kernels' allocations go through a worker session's, so a proto that asks
// for a huge tensor must be refused with RESOURCE_EXHAUSTED, not allocated.
// An accepted tensor must survive both proto encodings
// (AsProtoTensorContent, AsProtoField) unchanged.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "protos/tensor.pb.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_tensors.h"

namespace tributary {
namespace fuzz {
namespace {

void CheckRoundTrip(const Tensor& tensor, bool typed_fields) {
  tensorflow::TensorProto proto;
  if (typed_fields) {
    tensor.AsProtoField(&proto);
  } else {
    tensor.AsProtoTensorContent(&proto);
  }
  // The tensor itself holds up to the whole budget: the copy has its own.
  absl::StatusOr<Tensor> again = Tensor::FromProto(proto, OracleAllocator());
  Check(again.ok(), absl::StrCat("a tensor's own proto is refused: ",
                                 again.status().ToString()));
  // Compare through content: NaN payloads compare equal bytewise.
  Check(TensorBytes(*again) == TensorBytes(tensor),
        absl::StrCat("proto round trip changed ", tensor.DebugString()));
}

}  // namespace
}  // namespace fuzz
}  // namespace tributary

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tributary::Tensor;
  namespace fuzz = tributary::fuzz;
  tensorflow::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<Tensor> tensor =
      Tensor::FromProto(proto, fuzz::BudgetedAllocator());
  if (!tensor.ok()) {
    fuzz::CheckErrorCode(tensor.status(),
                         {absl::StatusCode::kInvalidArgument,
                          absl::StatusCode::kResourceExhausted,
                          // DT_VARIANT: no wire encoding (tensor.h)
                          absl::StatusCode::kUnimplemented},
                         "Tensor::FromProto");
    return 0;
  }
  fuzz::CheckRoundTrip(*tensor, /*typed_fields=*/false);
  fuzz::CheckRoundTrip(*tensor, /*typed_fields=*/true);
  return 0;
}
