#include "tools/cli/feed_file.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "common/framework/status.h"
#include "tools/cli/npy_format.h"
#include "tools/cli/value_parsing.h"

namespace tributary {

absl::StatusOr<Tensor> ReadFeedFile(const std::string& path,
                                    std::optional<DataType> json_dtype) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::InvalidArgument("cannot open '", path, "'");
  // Sized read: a large array is held once here and once in its tensor,
  // not also in a stringstream's growing buffer.
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return errors::InvalidArgument("cannot read '", path, "'");
  in.seekg(0, std::ios::beg);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), size)) {
    return errors::InvalidArgument("cannot read '", path, "'");
  }

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
