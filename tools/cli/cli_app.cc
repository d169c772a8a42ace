#include "tools/cli/cli_app.h"

#include "CLI/CLI.hpp"
#include "common/daemon/version.h"
#include "tools/cli/inspect_command.h"

namespace tributary {
namespace {

void AddInspect(CLI::App& app, CliInvocation* inv) {
  CLI::App* inspect = app.add_subcommand(
      "inspect",
      "Print a GraphDef's nodes, ops, devices, edges and validation errors");
  inspect
      ->add_option("GRAPH", inv->inspect_graph,
                   "GraphDef file: binary .pb or text .pbtxt; or a SavedModel "
                   "directory, whose tag sets and signatures are listed")
      ->required();
  inspect->add_flag("--json", inv->inspect_json, "Print the report as JSON");
  inspect->add_flag(
      "--optimized", inv->inspect_optimized,
      "List the graph after the optimizer's passes (constant folding, "
      "fusion) on one CPU; the passes' summary goes to stderr");
  inspect->callback([inv] { inv->command = CliCommand::kInspect; });
}

void AddRun(CLI::App& app, CliInvocation* inv) {
  RunCommandOptions& o = inv->run;
  CLI::App* run = app.add_subcommand(
      "run",
      "Run a GraphDef in a session and print the fetched tensors as JSON:\n"
      "  {\"fetches\": {\"NAME\": {\"dtype\": ..., \"shape\": [...], "
      "\"values\": [...]}}}\n"
      "or {\"error\": {\"code\": ..., \"message\": ...}} with a non-zero exit "
      "status.");
  run->add_option("--graph", o.graph_path,
                  "GraphDef file: binary .pb or text .pbtxt (or a SavedModel's "
                  "saved_model.pb, its first meta graph as it is)");
  run->add_option("--saved-model", o.saved_model_dir,
                  "SavedModel directory: load it (variables restored, init op "
                  "run) and run one signature; prints its outputs by key");
  run->add_option("--tag", o.tags,
                  "With --saved-model: the meta graph's tag set, repeated or "
                  "comma-separated (default: serve)")
      ->take_all();
  run->add_option("--signature", o.signature,
                  "With --saved-model: the SignatureDef key (default: "
                  "serving_default)");
  run->add_option("--input", o.inputs,
                  "With --saved-model: KEY=VALUE, a signature input in the "
                  "--feed syntax (JSON, dtype-prefixed, @file.npy)")
      ->take_all();
  run->add_option(
      "--target", o.target,
      "Session target: \"\" or \"local\" (in process; default), or "
      "grpc://host:port (a master, e.g. the line `tributary cluster up` "
      "prints)");
  run->add_option(
         "--feed", o.feeds,
         "NAME=VALUE: feed tensor NAME (node or node:i) with a JSON scalar or "
         "nested array, optionally dtype-prefixed: x=float32:[[1,2],[3,4]]; "
         "or from a file: x=@batch.npy (NumPy array, its own dtype and "
         "shape), x=@values.json (the same JSON syntax). Checked against the "
         "placeholder's dtype and shape")
      ->take_all();
  run->add_option("--fetch", o.fetches, "Tensor to fetch (node or node:i)")
      ->take_all();
  run->add_option("--run-target", o.run_targets,
                  "Node to run in the main step without fetching it")
      ->take_all();
  run->add_option("--init", o.inits,
                  "Node to run as a step of its own before the main step, in "
                  "order given")
      ->take_all();
  run->add_option(
         "--steps", o.steps,
         "Run the main step N times in one session; print the last fetches")
      ->check(CLI::PositiveNumber);
  run->add_option(
      "--trace", o.trace_path,
      "Write the (last) main step's StepStats as a Chrome trace to FILE");
  run->add_option("--output", o.output_path,
                  "Also write the fetches to FILE.npz (entry NAME.npy per "
                  "fetch; numpy.load reads it) or FILE.npy (exactly one "
                  "fetch); the JSON then lists dtype and shape without values");
  run->add_option(
      "--config", o.config_text,
      "Session ConfigProto in protobuf text format, e.g. "
      "'allow_soft_placement: true device_filters: \"/job:worker\"' "
      "(local and grpc:// targets; merged over --config-file)");
  run->add_option("--config-file", o.config_file,
                  "File holding the session ConfigProto in text format");
  AddClientCredentialFlags(run, &o.credentials);
  run->callback([inv] { inv->command = CliCommand::kRun; });
}

void AddDevices(CLI::App& app, CliInvocation* inv) {
  CLI::App* devices = app.add_subcommand(
      "devices",
      "List every device of a session target: for grpc://host:port every "
      "device of "
      "every task of the cluster (name, type, memory, incarnation)");
  devices
      ->add_option("--target", inv->devices.target,
                   "Session target: grpc://host:port, or \"local\"")
      ->required();
  devices->add_flag("--json", inv->devices.json, "Print the list as JSON");
  AddClientCredentialFlags(devices, &inv->devices.credentials);
  devices->callback([inv] { inv->command = CliCommand::kDevices; });
}

void AddHealth(CLI::App& app, CliInvocation* inv) {
  CLI::App* health = app.add_subcommand(
      "health",
      "Ask a daemon's gRPC health service whether it serves (prints SERVING "
      "or NOT_SERVING; exit 0 only when serving): a probe for scripts and "
      "Kubernetes exec probes, TLS included");
  health
      ->add_option("--target", inv->health.target,
                   "The master's or a worker's gRPC address: grpc://host:port")
      ->required();
  health->add_option("--service", inv->health.service,
                     "Ask about one service (tensorflow.MasterService, "
                     "tensorflow.WorkerService); default: the whole daemon");
  health
      ->add_option("--timeout", inv->health.timeout_s,
                   "Seconds to wait for the answer")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  AddClientCredentialFlags(health, &inv->health.credentials);
  health->callback([inv] { inv->command = CliCommand::kHealth; });
}

void AddTop(CLI::App& app, CliInvocation* inv) {
  CLI::App* top = app.add_subcommand(
      "top",
      "A live view of a cluster through its master: sessions, steps/s, step "
      "latency, and per task its health, devices, CPU, memory, RecvTensor "
      "bytes/s and RPCs/s, redrawn every --interval seconds");
  top->add_option("--target", inv->top.target, "The master: grpc://host:port")
      ->required();
  top->add_option("--interval", inv->top.interval_s,
                  "Seconds between readings (the rates are over this)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  top->add_flag("--once", inv->top.once,
                "Print one view (after two readings) and exit");
  top->add_flag("--json", inv->top.json,
                "Print the view as JSON, one object per line");
  AddClientCredentialFlags(top, &inv->top.credentials);
  top->callback([inv] { inv->command = CliCommand::kTop; });
}

void AddCluster(CLI::App& app, CliInvocation* inv) {
  CLI::App* cluster = app.add_subcommand(
      "cluster",
      "Run a whole cluster on this machine: `cluster up`, `cluster down`");
  cluster->require_subcommand(1);

  ClusterUpOptions& up = inv->cluster_up;
  CLI::App* up_cmd = cluster->add_subcommand(
      "up",
      "Start every task of a cluster spec (tributary-worker) and a master "
      "(tributary-master) as child processes, wait until all answer, print the "
      "master's grpc:// target as the first stdout line, and stay in the "
      "foreground until Ctrl-C/SIGTERM (or `tributary cluster down`), which "
      "stops them all");
  up_cmd
      ->add_option("--cluster", up.cluster_file,
                   "Cluster spec file (JSON: {\"ps\": [\"host:port\"], "
                   "\"worker\": [...]})")
      ->required();
  up_cmd
      ->add_option("--master", up.master_address,
                   "Address the master listens on (port 0: a free port)")
      ->capture_default_str();
  up_cmd->add_option(
      "--log-dir", up.log_dir,
      "Directory for the daemons' logs (default: a new temporary "
      "directory, printed on stderr)");
  up_cmd->add_option("--state-dir", up.state_dir,
                     "Where the state file for `cluster down` goes (default: "
                     "$TRIBUTARY_STATE_DIR, $XDG_RUNTIME_DIR/tributary or "
                     "/tmp/tributary-UID)");
  up_cmd->add_option(
      "--worker-binary", up.worker_binary,
      "tributary-worker to run (default: next to this binary, the "
      "Bazel output tree, then $PATH)");
  up_cmd->add_option(
      "--master-binary", up.master_binary,
      "tributary-master to run (default: as for --worker-binary)");
  up_cmd
      ->add_option("--startup-timeout", up.startup_timeout_seconds,
                   "Seconds to wait for every daemon to answer")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  up_cmd
      ->add_option("--grace-period", up.grace_period_seconds,
                   "Seconds a daemon gets after SIGTERM before SIGKILL")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  up_cmd->add_option(
      "--worker-flag", up.worker_flags,
      "Extra flag for every worker, e.g. --worker-flag=--cpu-devices=2 "
      "(repeatable)");
  up_cmd->add_option(
      "--master-flag", up.master_flags,
      "Extra flag for the master, e.g. --master-flag=--log-level=debug "
      "(repeatable)");
  up_cmd
      ->add_option("--tls", up.tls_mode,
                   "auto: mutual TLS everywhere with a throwaway CA and "
                   "certificates made in LOG_DIR/tls (the other tributary "
                   "commands find them for this cluster's target); off: "
                   "plaintext unless --tls-cert/--tls-key/--tls-ca are given")
      ->capture_default_str();
  up_cmd->add_option("--tls-cert", up.tls_files.cert_file,
                     "PEM certificate every daemon uses (it must allow both "
                     "server and client use)");
  up_cmd->add_option("--tls-key", up.tls_files.key_file,
                     "PEM private key of --tls-cert");
  up_cmd->add_option("--tls-ca", up.tls_files.ca_file,
                     "PEM CA certificate --tls-cert chains to");
  up_cmd->callback([inv] { inv->command = CliCommand::kClusterUp; });

  ClusterDownOptions& down = inv->cluster_down;
  CLI::App* down_cmd = cluster->add_subcommand(
      "down",
      "Stop a cluster that `tributary cluster up` runs (from another shell)");
  down_cmd->add_option(
      "--cluster", down.cluster_file,
      "Its cluster spec file (default: the only running cluster)");
  down_cmd->add_option("--state-dir", down.state_dir,
                       "As given to `cluster up` (same default)");
  down_cmd
      ->add_option("--grace-period", down.grace_period_seconds,
                   "Seconds a daemon gets after SIGTERM before SIGKILL")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  down_cmd->callback([inv] { inv->command = CliCommand::kClusterDown; });
}

}  // namespace

CliInvocation ParseCommandLine(const std::vector<std::string>& args,
                               std::ostream& out, std::ostream& err) {
  CliInvocation inv;
  CLI::App app{
      "tributary: inspect and run TensorFlow GraphDefs on the Tributary "
      "runtime, "
      "locally or on a cluster"};
  app.set_version_flag("--version", VersionLine("tributary"),
                       "Print the version and commit, and exit");
  app.require_subcommand(1);
  AddInspect(app, &inv);
  AddRun(app, &inv);
  AddDevices(app, &inv);
  AddHealth(app, &inv);
  AddTop(app, &inv);
  AddCluster(app, &inv);

  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    inv.command = CliCommand::kNone;
    inv.exit_code = app.exit(e, out, err);
  }
  return inv;
}

int RunCommandLine(const CliInvocation& inv, std::ostream& out,
                   std::ostream& err) {
  switch (inv.command) {
    case CliCommand::kNone:
      return inv.exit_code;
    case CliCommand::kInspect:
      return RunInspect(inv.inspect_graph, inv.inspect_json,
                        inv.inspect_optimized, out, err);
    case CliCommand::kRun:
      return RunRunCommand(inv.run, out);
    case CliCommand::kDevices:
      return RunDevicesCommand(inv.devices, out, err);
    case CliCommand::kHealth:
      return RunHealthCommand(inv.health, out, err);
    case CliCommand::kTop:
      return RunTopCommand(inv.top, out, err);
    case CliCommand::kClusterUp:
      return RunClusterUp(inv.cluster_up, out, err);
    case CliCommand::kClusterDown:
      return RunClusterDown(inv.cluster_down, out, err);
  }
  return 1;
}

}  // namespace tributary
