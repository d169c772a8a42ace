// `tributary run --saved-model DIR`: loads a SavedModel into a session and
// runs one of its signatures, printing the signature's named outputs as
// `tributary run` prints fetches (run_output.h), keyed by output key:
//
//   tributary run --saved-model DIR [--tag serve]... [--signature KEY]
//       --input KEY=VALUE... [--target T] [--steps N] [--output FILE]
//       [--config TEXT] [--config-file FILE]
//
// The load is common/runtime/saved_model's LoadSavedModel on the session of
// --target: local, or a cluster's master (grpc://), where the graph, its
// variables' restore and the init op all run on the cluster. --tag may be
// repeated or comma-separated ("serve,gpu"); default "serve". --signature
// defaults to "serving_default". Each --input is KEY=VALUE in the --feed
// syntax (JSON, dtype-prefixed, @file.npy / @file.json), its dtype taken
// from the signature's TensorInfo and checked with its shape. --steps N runs
// the signature N times (the last outputs are printed). --graph-only flags
// (--feed, --fetch, --run-target, --init, --trace) are refused.
//
// Exit codes as `tributary run`: 2 for bad input (missing directory or
// file, unknown tag set or signature, a missing or unknown input key, a
// value that does not fit), 1 when loading (restore, init) or a step fails;
// the JSON error keeps the code (NOT_FOUND, INVALID_ARGUMENT, DATA_LOSS...).
#ifndef TRIBUTARY_TOOLS_CLI_SAVED_MODEL_RUN_H_
#define TRIBUTARY_TOOLS_CLI_SAVED_MODEL_RUN_H_

#include <ostream>

#include "tools/cli/run_command.h"

namespace tributary {

int RunSavedModelCommand(const RunCommandOptions& options, std::ostream& out);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_SAVED_MODEL_RUN_H_
