// Training that survives a task restart (issue 17; what TensorFlow 1.x users
// could not do without supervisor code of their own,
// tensorflow/tensorflow#7767).
//
// The README's training job (tools/examples/train_logistic_regression) on a
// real 1 ps + 2 worker cluster with --checkpoint-dir and --checkpoint-every:
//  * the ps task is SIGKILLed mid-training and restarted on its address; the
//    job opens a new session, restores the latest checkpoint (the variables
//    died with the ps) and goes on;
//  * later worker task 1 is SIGKILLed and restarted the same way;
// and the job's final loss equals, to every digit printed, that of an
// uninterrupted run of the same length (full-batch gradient descent on fixed
// data is deterministic, so resuming from step k replays steps k+1.. exactly).

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/checkpoint/file_io.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/test_process.h"

namespace tributary {
namespace test {
namespace {

constexpr int kSteps = 3000;
constexpr int kEvery = 100;

// The file's text; empty when it cannot be read (yet).
std::string ReadFile(const std::string& path) {
  return ReadFileToString(path).value_or("");
}

// The step of the latest checkpoint recorded in `dir`, 0 when none.
int LatestStep(const std::string& dir) {
  const std::string text = ReadFile(dir + "/checkpoint");
  const std::string key = "model_checkpoint_path: \"model.ckpt-";
  const size_t at = text.find(key);
  if (at == std::string::npos) return 0;
  return std::atoi(text.c_str() + at + key.size());
}

// The "Final loss X" line of a training log; empty when missing.
std::string FinalLoss(const std::string& log) {
  const size_t at = log.rfind("Final loss ");
  if (at == std::string::npos) return "";
  const size_t end = log.find('\n', at);
  return log.substr(at, end - at);
}

class TrainingRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = TestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value();
    dir_ = MakeTempDir("training_restart");
  }
  void TearDown() override {
    if (cluster_ && HasFailure()) cluster_->DumpLogs();
  }

  // Starts the training job writing checkpoints to `ckpt_dir`.
  std::unique_ptr<ChildProcess> StartTraining(const std::string& name,
                                              const std::string& ckpt_dir) {
    auto child = StartTestProcess(
        name,
        {RunfilePath("tools/examples/train_logistic_regression"), "--target",
         cluster_->master_target(), "--steps", std::to_string(kSteps),
         "--checkpoint-dir", ckpt_dir, "--checkpoint-every",
         std::to_string(kEvery), "--step-timeout-ms", "30000"},
        dir_ + "/" + name + ".log");
    EXPECT_TRUE(child.ok()) << child.status();
    return child.ok() ? std::move(child).value() : nullptr;
  }

  // Waits (bounded) until `dir` holds a checkpoint of step >= `step`.
  void WaitForCheckpoint(const std::string& dir, int step, ChildProcess* job) {
    const absl::Time give_up = absl::Now() + absl::Seconds(240);
    while (LatestStep(dir) < step) {
      ASSERT_TRUE(job->Running())
          << ReadFile(dir_ + "/" + job->name() + ".log");
      ASSERT_LT(absl::Now(), give_up) << "no checkpoint of step " << step;
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  std::unique_ptr<TestCluster> cluster_;
  std::string dir_;
};

TEST_F(TrainingRestartTest, JobSurvivesPsAndWorkerRestartsWithTheSameLoss) {
  // The reference: uninterrupted.
  const std::string straight_dir = dir_ + "/straight";
  ASSERT_EQ(std::system(("mkdir -p " + straight_dir).c_str()), 0);
  auto straight = StartTraining("straight", straight_dir);
  ASSERT_NE(straight, nullptr);
  ASSERT_TRUE(straight->WaitUntil(absl::Now() + absl::Seconds(600)));
  const std::string straight_log = ReadFile(dir_ + "/straight.log");
  ASSERT_EQ(straight->ExitCode(), 0) << straight_log;

  // The same job, its ps and then a worker killed and restarted.
  const std::string ckpt = dir_ + "/interrupted";
  ASSERT_EQ(std::system(("mkdir -p " + ckpt).c_str()), 0);
  auto job = StartTraining("interrupted", ckpt);
  ASSERT_NE(job, nullptr);
  WaitForCheckpoint(ckpt, kSteps / 3, job.get());
  ASSERT_TRUE(cluster_->KillTask("ps", 0).ok());
  absl::SleepFor(absl::Seconds(1));  // the job notices while the ps is down
  ASSERT_TRUE(cluster_->RestartTask("ps", 0).ok());
  WaitForCheckpoint(ckpt, 2 * kSteps / 3, job.get());
  ASSERT_TRUE(cluster_->KillTask("worker", 1).ok());
  ASSERT_TRUE(cluster_->RestartTask("worker", 1).ok());
  ASSERT_TRUE(job->WaitUntil(absl::Now() + absl::Seconds(600)));
  const std::string log = ReadFile(dir_ + "/interrupted.log");
  ASSERT_EQ(job->ExitCode(), 0) << log;

  // It recovered twice, each time from a checkpoint, and ended where the
  // uninterrupted run did.
  int recoveries = 0;
  for (size_t at = log.find("Recovered after"); at != std::string::npos;
       at = log.find("Recovered after", at + 1)) {
    ++recoveries;
  }
  EXPECT_EQ(recoveries, 2) << log;
  EXPECT_TRUE(absl::StrContains(log, "model.ckpt-")) << log;
  const std::string want = FinalLoss(straight_log);
  ASSERT_FALSE(want.empty()) << straight_log;
  EXPECT_EQ(FinalLoss(log), want) << log;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (absl::StrContains(line, "failed:") ||
        absl::StrContains(line, "Recovered") ||
        absl::StrContains(line, "Final loss")) {
      std::cout << line << "\n";
    }
  }
  std::cout << "uninterrupted: " << want << "\n";
}

}  // namespace
}  // namespace test
}  // namespace tributary
