// Fuzz target: the CLI's feed values (tools/cli/value_parsing.h: `tributary
// run --feed NAME=[DTYPE:]JSON`). The first byte picks the dtype the graph
// declares for the fed tensor (none, or one of the CLI's dtypes), the rest is
// the flag. A refusal is INVALID_ARGUMENT with a message; an accepted inline
// value must give a tensor of the prefix's or declared dtype.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "tests/fuzz/fuzz_check.h"
#include "tools/cli/value_parsing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tributary;  // NOLINT(build/namespaces): one function.
  if (size == 0) return 0;
  static const DataType kDeclared[] = {
      DT_FLOAT,  DT_DOUBLE, DT_HALF,  DT_BFLOAT16, DT_INT8,
      DT_INT16,  DT_INT32,  DT_INT64, DT_UINT8,    DT_UINT16,
      DT_UINT32, DT_UINT64, DT_BOOL,  DT_STRING,   DT_COMPLEX64};
  constexpr int kChoices = sizeof(kDeclared) / sizeof(kDeclared[0]) + 1;
  const int choice = data[0] % kChoices;
  std::optional<DataType> declared;
  if (choice > 0) declared = kDeclared[choice - 1];
  const absl::string_view flag(reinterpret_cast<const char*>(data) + 1,
                               size - 1);

  absl::StatusOr<FeedFlag> parsed = ParseFeedFlag(flag);
  if (!parsed.ok()) {
    fuzz::CheckErrorCode(parsed.status(), {absl::StatusCode::kInvalidArgument},
                         "ParseFeedFlag");
    return 0;
  }
  fuzz::Check(!parsed->name.empty(), "a feed flag parsed with no name");
  if (!parsed->file.empty()) return 0;  // @PATH: read by feed_file.h
  const std::optional<DataType> dtype =
      parsed->dtype.has_value() ? parsed->dtype : declared;
  absl::StatusOr<Tensor> tensor = JsonToTensor(parsed->value, dtype);
  if (!tensor.ok()) {
    fuzz::CheckErrorCode(tensor.status(), {absl::StatusCode::kInvalidArgument},
                         "JsonToTensor");
    return 0;
  }
  if (dtype.has_value()) {
    fuzz::Check(tensor->dtype() == *dtype,
                "JsonToTensor gave another dtype than asked");
  }
  return 0;
}
