// The `tributary` command line: every subcommand's flags, parsed into
// option structs, and the dispatch to the command that runs them. Kept out
// of main() so the parsing is unit-tested.
//
//   tributary inspect GRAPH [--json] [--optimized]
//   tributary inspect SAVED_MODEL_DIR [--json] (saved_model_inspect.h)
//   tributary run --graph GRAPH [--target T] ...          (run_command.h)
//   tributary run --saved-model DIR [--signature K] ...   (saved_model_run.h)
//   tributary devices --target T [--json]                  (devices_command.h)
//   tributary health --target T [--service S]              (health_command.h)
//   tributary top --target T [--interval S] [--once] [--json] (top_command.h)
//   tributary cluster up --cluster FILE [--master ADDR] ...  (cluster_up.h)
//   tributary cluster down [--cluster FILE] ...            (cluster_down.h)
#ifndef TRIBUTARY_TOOLS_CLI_CLI_APP_H_
#define TRIBUTARY_TOOLS_CLI_CLI_APP_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/cli/cluster_down.h"
#include "tools/cli/cluster_up.h"
#include "tools/cli/devices_command.h"
#include "tools/cli/health_command.h"
#include "tools/cli/run_command.h"
#include "tools/cli/top_command.h"

namespace tributary {

enum class CliCommand {
  kNone,  // Parsing ended the program (--help, a usage error).
  kInspect,
  kRun,
  kDevices,
  kHealth,
  kTop,
  kClusterUp,
  kClusterDown,
};

struct CliInvocation {
  CliCommand command = CliCommand::kNone;
  // When command is kNone: the exit status (0 after --help).
  int exit_code = 0;

  std::string inspect_graph;
  bool inspect_json = false;
  bool inspect_optimized = false;
  RunCommandOptions run;
  DevicesCommandOptions devices;
  HealthCommandOptions health;
  TopCommandOptions top;
  ClusterUpOptions cluster_up;
  ClusterDownOptions cluster_down;
};

// Parses `args` (args[0] is the program name). Help and usage errors are
// printed to `out` / `err` as CLI11 prints them.
CliInvocation ParseCommandLine(const std::vector<std::string>& args,
                               std::ostream& out, std::ostream& err);

// Runs the parsed command; returns the process's exit status.
int RunCommandLine(const CliInvocation& invocation, std::ostream& out,
                   std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CLI_APP_H_
