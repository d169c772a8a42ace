#include "tools/cli/cli_app.h"

#include <sstream>
#include <string>
#include <vector>

#include "common/daemon/version.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

struct Parsed {
  CliInvocation inv;
  std::string out;
  std::string err;
};

Parsed Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "tributary");
  std::ostringstream out, err;
  Parsed p;
  p.inv = ParseCommandLine(args, out, err);
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(CliAppTest, RunTakesTargetAndRepeatedFlags) {
  Parsed p =
      Parse({"run", "--graph", "g.pbtxt", "--target", "grpc://h:1", "--feed",
             "x=[1,2]", "--feed", "y=3", "--fetch", "z", "--steps", "4"});
  ASSERT_EQ(p.inv.command, CliCommand::kRun) << p.err;
  EXPECT_EQ(p.inv.run.graph_path, "g.pbtxt");
  EXPECT_EQ(p.inv.run.target, "grpc://h:1");
  EXPECT_EQ(p.inv.run.feeds, (std::vector<std::string>{"x=[1,2]", "y=3"}));
  EXPECT_EQ(p.inv.run.fetches, (std::vector<std::string>{"z"}));
  EXPECT_EQ(p.inv.run.steps, 4);
}

TEST(CliAppTest, RunTakesFileFeedsOutputAndConfig) {
  Parsed p = Parse({"run", "--graph", "g.pb", "--feed", "x=@batch.npy",
                    "--fetch", "y", "--output", "out.npz", "--config",
                    "allow_soft_placement: true  device_filters: \"/job:w\"",
                    "--config-file", "c.pbtxt"});
  ASSERT_EQ(p.inv.command, CliCommand::kRun) << p.err;
  EXPECT_EQ(p.inv.run.feeds, (std::vector<std::string>{"x=@batch.npy"}));
  EXPECT_EQ(p.inv.run.output_path, "out.npz");
  EXPECT_EQ(p.inv.run.config_text,
            "allow_soft_placement: true  device_filters: \"/job:w\"");
  EXPECT_EQ(p.inv.run.config_file, "c.pbtxt");
}

TEST(CliAppTest, RunTakesSavedModelFlags) {
  Parsed p = Parse({"run", "--saved-model", "model", "--tag", "serve,gpu",
                    "--signature", "predict", "--input", "x=[1,2]", "--input",
                    "k=@k.npy", "--target", "grpc://h:1"});
  ASSERT_EQ(p.inv.command, CliCommand::kRun) << p.err;
  EXPECT_EQ(p.inv.run.saved_model_dir, "model");
  EXPECT_EQ(p.inv.run.graph_path, "");
  EXPECT_EQ(p.inv.run.tags, (std::vector<std::string>{"serve,gpu"}));
  EXPECT_EQ(p.inv.run.signature, "predict");
  EXPECT_EQ(p.inv.run.inputs,
            (std::vector<std::string>{"x=[1,2]", "k=@k.npy"}));
}

TEST(CliAppTest, RunHelpDocumentsFilesAndConfig) {
  Parsed p = Parse({"run", "--help"});
  EXPECT_EQ(p.inv.command, CliCommand::kNone);
  EXPECT_EQ(p.inv.exit_code, 0);
  for (const char* text :
       {"--output", "--config", "--config-file", "@batch.npy", "--saved-model",
        "--signature", "--input", "--tag"}) {
    EXPECT_NE(p.out.find(text), std::string::npos) << text << "\n" << p.out;
  }
}

TEST(CliAppTest, VersionNamesTheReleaseAndTheCommit) {
  Parsed p = Parse({"--version"});
  EXPECT_EQ(p.inv.command, CliCommand::kNone);
  EXPECT_EQ(p.inv.exit_code, 0);
  EXPECT_EQ(p.out, VersionLine("tributary") + "\n");
  EXPECT_NE(p.out.find(std::string(" ") + TributaryVersion() + " (commit "),
            std::string::npos)
      << p.out;
}

TEST(CliAppTest, InspectStillParses) {
  Parsed p = Parse({"inspect", "g.pb", "--json"});
  ASSERT_EQ(p.inv.command, CliCommand::kInspect) << p.err;
  EXPECT_EQ(p.inv.inspect_graph, "g.pb");
  EXPECT_TRUE(p.inv.inspect_json);
}

TEST(CliAppTest, DevicesNeedsTarget) {
  Parsed p = Parse({"devices", "--target", "grpc://127.0.0.1:5", "--json"});
  ASSERT_EQ(p.inv.command, CliCommand::kDevices) << p.err;
  EXPECT_EQ(p.inv.devices.target, "grpc://127.0.0.1:5");
  EXPECT_TRUE(p.inv.devices.json);

  Parsed missing = Parse({"devices"});
  EXPECT_EQ(missing.inv.command, CliCommand::kNone);
  EXPECT_NE(missing.inv.exit_code, 0);
  EXPECT_NE(missing.err.find("--target"), std::string::npos) << missing.err;
}

TEST(CliAppTest, ClusterUpDefaultsAndFlags) {
  Parsed defaults = Parse({"cluster", "up", "--cluster", "spec.json"});
  ASSERT_EQ(defaults.inv.command, CliCommand::kClusterUp) << defaults.err;
  const ClusterUpOptions& d = defaults.inv.cluster_up;
  EXPECT_EQ(d.cluster_file, "spec.json");
  EXPECT_EQ(d.master_address, "127.0.0.1:0");
  EXPECT_TRUE(d.log_dir.empty());
  EXPECT_GT(d.startup_timeout_seconds, 0);
  EXPECT_GT(d.grace_period_seconds, 0);

  Parsed p = Parse({"cluster",
                    "up",
                    "--cluster",
                    "spec.json",
                    "--master",
                    "0.0.0.0:2220",
                    "--log-dir",
                    "/tmp/l",
                    "--state-dir",
                    "/tmp/s",
                    "--worker-binary",
                    "/w",
                    "--master-binary",
                    "/m",
                    "--startup-timeout",
                    "5",
                    "--grace-period",
                    "0.5",
                    "--worker-flag=--cpu-devices=2",
                    "--worker-flag=--log-level=debug",
                    "--master-flag=--idle-session-timeout=0"});
  ASSERT_EQ(p.inv.command, CliCommand::kClusterUp) << p.err;
  const ClusterUpOptions& o = p.inv.cluster_up;
  EXPECT_EQ(o.master_address, "0.0.0.0:2220");
  EXPECT_EQ(o.log_dir, "/tmp/l");
  EXPECT_EQ(o.state_dir, "/tmp/s");
  EXPECT_EQ(o.worker_binary, "/w");
  EXPECT_EQ(o.master_binary, "/m");
  EXPECT_EQ(o.startup_timeout_seconds, 5);
  EXPECT_EQ(o.grace_period_seconds, 0.5);
  EXPECT_EQ(o.worker_flags,
            (std::vector<std::string>{"--cpu-devices=2", "--log-level=debug"}));
  EXPECT_EQ(o.master_flags,
            (std::vector<std::string>{"--idle-session-timeout=0"}));
}

TEST(CliAppTest, ClusterUpRequiresClusterFile) {
  Parsed p = Parse({"cluster", "up"});
  EXPECT_EQ(p.inv.command, CliCommand::kNone);
  EXPECT_NE(p.inv.exit_code, 0);
  EXPECT_NE(p.err.find("--cluster"), std::string::npos) << p.err;
}

TEST(CliAppTest, ClusterDownClusterIsOptional) {
  Parsed p = Parse({"cluster", "down"});
  ASSERT_EQ(p.inv.command, CliCommand::kClusterDown) << p.err;
  EXPECT_TRUE(p.inv.cluster_down.cluster_file.empty());
  Parsed q =
      Parse({"cluster", "down", "--cluster", "c.json", "--state-dir", "/s"});
  ASSERT_EQ(q.inv.command, CliCommand::kClusterDown) << q.err;
  EXPECT_EQ(q.inv.cluster_down.cluster_file, "c.json");
  EXPECT_EQ(q.inv.cluster_down.state_dir, "/s");
}

TEST(CliAppTest, ClusterAloneAndUnknownCommandsAreUsageErrors) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"cluster"}, {"frobnicate"}, {}, {"cluster", "sideways"}}) {
    Parsed p = Parse(args);
    EXPECT_EQ(p.inv.command, CliCommand::kNone);
    EXPECT_NE(p.inv.exit_code, 0);
  }
}

TEST(CliAppTest, HelpExitsZeroAndListsCommands) {
  Parsed p = Parse({"--help"});
  EXPECT_EQ(p.inv.command, CliCommand::kNone);
  EXPECT_EQ(p.inv.exit_code, 0);
  for (const char* command : {"inspect", "run", "devices", "cluster"}) {
    EXPECT_NE(p.out.find(command), std::string::npos) << command;
  }
  Parsed up = Parse({"cluster", "up", "--help"});
  EXPECT_EQ(up.inv.exit_code, 0);
  EXPECT_NE(up.out.find("--grace-period"), std::string::npos) << up.out;
}

}  // namespace
}  // namespace tributary
