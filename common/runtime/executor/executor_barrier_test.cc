#include "common/runtime/executor/executor_barrier.h"

#include "common/framework/status.h"
#include "common/rendezvous/intra_process_rendezvous.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(ExecutorBarrierTest, DoneRunsOnceAfterTheLastReport) {
  int calls = 0;
  absl::Status seen = errors::Unknown("unset");
  ExecutorBarrier barrier(3, nullptr, [&](const absl::Status& s) {
    ++calls;
    seen = s;
  });
  barrier.Report(absl::OkStatus());
  barrier.Report(absl::OkStatus());
  EXPECT_EQ(calls, 0);
  barrier.Report(absl::OkStatus());
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(seen.ok());
}

TEST(ExecutorBarrierTest, RealErrorWinsOverItsCancelledEchoes) {
  absl::Status seen;
  IntraProcessRendezvous rendezvous;
  ExecutorBarrier barrier(3, &rendezvous,
                          [&](const absl::Status& s) { seen = s; });
  barrier.Report(errors::Cancelled("step cancelled"));
  barrier.Report(errors::InvalidArgument("boom in node a"));
  barrier.Report(errors::Aborted("rendezvous aborted"));
  EXPECT_EQ(seen.code(), absl::StatusCode::kInvalidArgument);
  // The first failure aborted the step's rendezvous.
  EXPECT_FALSE(rendezvous.status().ok());
}

}  // namespace
}  // namespace tributary
