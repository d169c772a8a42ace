// `tributary run`: runs a GraphDef in a session and prints the fetches as JSON.
//
//   tributary run --graph GRAPH [--target T] [--feed NAME=VALUE]...
//       [--fetch NAME]... [--run-target NODE]... [--init NODE]...
//       [--steps N] [--trace FILE] [--output FILE.npz|FILE.npy]
//       [--config TEXT] [--config-file FILE]
//   tributary run --saved-model DIR [--tag serve]... [--signature KEY]
//       [--input KEY=VALUE]... [--target T] [--steps N] [--output ...]
//       [--config TEXT] [--config-file FILE]          (saved_model_run.h)
//
// One session holds the graph for the whole command: target "" / "local"
// runs it in this process, "grpc://host:port" on a cluster through its
// master (tools/client/session.h). Each --init NODE runs as a step of its
// own, in order; then the main step (feeds, fetches, --run-target nodes)
// runs N times (--steps, default 1) and the last step's fetches are printed:
//   {"fetches": {"NAME": {"dtype": "DT_FLOAT", "shape": [2,2], "values":
//   [...]}}}
// (tensor_json.h for the value format; value_parsing.h for VALUE). With
// only --init steps the main step is skipped ({"fetches": {}}). --trace FILE
// traces the last main step and writes its StepStats as a Chrome trace.
//
// A feed's value may come from a file, --feed NAME=@x.npy or @x.json
// (feed_file.h). Every feed is checked against the graph before anything
// runs: its dtype against the fed output's, its shape against a
// Placeholder's shape attr (feed_signature.h). --output writes the fetches
// as .npz / .npy (output_file.h); the JSON then omits "values" and adds
// "output": FILE. --config / --config-file give the session's ConfigProto
// in text format (session_config.h).
//
// On any failure (unreadable graph, bad flag, a step's error) it prints
//   {"error": {"code": "INVALID_ARGUMENT", "message": "..."}}
// (the code as TensorFlow's error enum names it) and returns non-zero: 1
// for a step or session error, 2 for bad input (graph file, flags).
#ifndef TRIBUTARY_TOOLS_CLI_RUN_COMMAND_H_
#define TRIBUTARY_TOOLS_CLI_RUN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/cli/client_credentials.h"

namespace tributary {

struct RunCommandOptions {
  std::string graph_path;       // --graph; or
  std::string saved_model_dir;  // --saved-model, with:
  std::vector<std::string> tags;       // --tag; empty: {"serve"}
  std::string signature;               // --signature; empty: serving_default
  std::vector<std::string> inputs;     // --input KEY=VALUE
  std::string target;
  ClientCredentialFlags credentials;  // For grpc:// targets.
  std::vector<std::string> feeds;        // NAME=VALUE
  std::vector<std::string> fetches;      // NAME
  std::vector<std::string> run_targets;  // NODE
  std::vector<std::string> inits;        // NODE
  int steps = 1;
  std::string trace_path;   // Empty: no trace.
  std::string output_path;  // Empty: values only in the JSON.
  std::string config_text;  // ConfigProto, text format; empty: none.
  std::string config_file;  // Its file; empty: none.
};

// Runs the command; JSON goes to `out`. Returns the exit code.
int RunRunCommand(const RunCommandOptions& options, std::ostream& out);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_RUN_COMMAND_H_
