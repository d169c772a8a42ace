#include "tools/cli/feed_file.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/match.h"
#include "common/framework/status.h"
#include "tools/cli/npy_format.h"
#include "tools/cli/value_parsing.h"

namespace tributary {

absl::StatusOr<Tensor> ReadFeedFile(const std::string& path,
                                    std::optional<DataType> json_dtype) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::InvalidArgument("cannot open '", path, "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return errors::InvalidArgument("cannot read '", path, "'");
  const std::string bytes = buffer.str();

  if (absl::EndsWith(path, ".npy") || absl::StartsWith(bytes, "\x93NUMPY")) {
    absl::StatusOr<Tensor> t = DecodeNpy(bytes);
    if (!t.ok()) {
      return errors::InvalidArgument("'", path, "': ", t.status().message());
    }
    return t;
  }
  if (absl::EndsWith(path, ".json")) {
    const nlohmann::json value =
        nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
      return errors::InvalidArgument("'", path, "' is not valid JSON");
    }
    absl::StatusOr<Tensor> t = JsonToTensor(value, json_dtype);
    if (!t.ok()) {
      return errors::InvalidArgument("'", path, "': ", t.status().message());
    }
    return t;
  }
  return errors::InvalidArgument("'", path,
                                 "' is neither .npy nor .json (the formats a "
                                 "feed file may have)");
}

}  // namespace tributary
