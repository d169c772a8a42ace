// Fuzz target: a cluster spec in TensorFlow's JSON form
// (common/cluster/cluster_def_json.h: `--cluster-spec`, `tributary cluster
// up`). A refusal is INVALID_ARGUMENT with a message; an accepted spec must
// pass ValidateClusterDef, and its JSON form (ClusterDefToJson) must parse
// back to an equal ClusterDef.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "common/cluster/cluster_def_json.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tributary;  // NOLINT(build/namespaces): one function.
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tensorflow::ClusterDef> cluster = ParseClusterSpecJson(text);
  if (!cluster.ok()) {
    fuzz::CheckErrorCode(cluster.status(), {absl::StatusCode::kInvalidArgument},
                         "ParseClusterSpecJson");
    return 0;
  }
  absl::Status valid = ValidateClusterDef(*cluster);
  fuzz::Check(valid.ok(),
              "a parsed spec fails ValidateClusterDef: " + valid.ToString());
  const std::string json = ClusterDefToJson(*cluster).dump();
  absl::StatusOr<tensorflow::ClusterDef> again = ParseClusterSpecJson(json);
  fuzz::Check(again.ok(), "the JSON of a parsed spec does not parse: " + json);
  fuzz::Check(
      google::protobuf::util::MessageDifferencer::Equals(*cluster, *again),
      "the JSON of a parsed spec parses to another spec: " + json);
  return 0;
}
