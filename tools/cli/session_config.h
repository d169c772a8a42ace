// `tributary run --config TEXT` and `--config-file FILE`: the ConfigProto the
// session is created with, for local and grpc:// targets alike (e.g.
// allow_soft_placement, device_filters, device_count, operation_timeout_in_ms).
//
// Both are protobuf text format ('allow_soft_placement: true
// device_filters: "/job:worker"'). The file is read first and TEXT merged
// over it, so a repeated field gets both lists and a scalar in TEXT wins.
// InvalidArgument naming the flag (and the parser's line:column) for an
// unreadable file or text that is not a ConfigProto.
#ifndef TRIBUTARY_TOOLS_CLI_SESSION_CONFIG_H_
#define TRIBUTARY_TOOLS_CLI_SESSION_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "protos/config.pb.h"

namespace tributary {

// Empty arguments are absent flags.
absl::StatusOr<tensorflow::ConfigProto> BuildSessionConfig(
    const std::string& config_file, const std::string& config_text);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_SESSION_CONFIG_H_
