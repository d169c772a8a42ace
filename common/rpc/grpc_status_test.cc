#include "common/rpc/grpc_status.h"

#include <string>

#include "common/framework/derived_status.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(GrpcStatusTest, OkRoundTrips) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
}

TEST(GrpcStatusTest, EveryCodeRoundTripsWithItsMessage) {
  for (int code = 1; code <= 16; ++code) {
    const absl::Status status(static_cast<absl::StatusCode>(code),
                              "node 'n' failed: " + std::to_string(code));
    const grpc::Status g = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(g.error_code()), code);
    EXPECT_EQ(g.error_message(), status.message());
    const absl::Status back = FromGrpcStatus(g);
    EXPECT_EQ(back, status) << code;
  }
}

TEST(GrpcStatusTest, NamedCodesMatch) {
  EXPECT_EQ(ToGrpcStatus(absl::InvalidArgumentError("x")).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ToGrpcStatus(absl::UnavailableError("x")).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ToGrpcStatus(absl::UnauthenticatedError("x")).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(FromGrpcStatus(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "t"))
                .code(),
            absl::StatusCode::kDeadlineExceeded);
}

TEST(GrpcStatusTest, ErrorWithoutMessageStaysAnError) {
  const absl::Status s = FromGrpcStatus(grpc::Status(grpc::StatusCode::ABORTED, ""));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
}

TEST(GrpcStatusTest, OutOfRangeCodesBecomeUnknown) {
  // 17 is a valid grpc::StatusCode object value (the enum's range covers
  // 0..31) but no canonical code; a newer peer could send it.
  EXPECT_EQ(FromGrpcStatus(grpc::Status(static_cast<grpc::StatusCode>(17), "m")).code(),
            absl::StatusCode::kUnknown);
  EXPECT_EQ(ToGrpcStatus(absl::Status(static_cast<absl::StatusCode>(20), "m"))
                .error_code(),
            grpc::StatusCode::UNKNOWN);
}

TEST(GrpcStatusTest, LongMessagesAreTruncated) {
  const std::string long_message = "start" + std::string(10000, 'x');
  const grpc::Status g = ToGrpcStatus(absl::InternalError(long_message));
  EXPECT_EQ(g.error_message().size(), kMaxGrpcStatusMessageBytes);
  EXPECT_EQ(g.error_message().substr(0, 5), "start");
  EXPECT_NE(g.error_message().find("[truncated]"), std::string::npos);
  const std::string exact(kMaxGrpcStatusMessageBytes, 'y');
  EXPECT_EQ(ToGrpcStatus(absl::InternalError(exact)).error_message(), exact);
}

TEST(GrpcStatusTest, PayloadsTravelInErrorDetails) {
  absl::Status s = errors::MarkDerived(absl::InvalidArgumentError("bad"));
  s.SetPayload("type.example/other", absl::Cord("bytes\0here"));
  const grpc::Status g = ToGrpcStatus(s);
  EXPECT_FALSE(g.error_details().empty());
  const absl::Status back = FromGrpcStatus(g);
  EXPECT_EQ(back.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(back.message(), "bad");
  EXPECT_TRUE(errors::IsMarkedDerived(back));
  EXPECT_EQ(back.GetPayload("type.example/other"),
            absl::Cord("bytes\0here"));
  // Without payloads there are no details, and foreign details are ignored.
  EXPECT_TRUE(ToGrpcStatus(absl::InternalError("x")).error_details().empty());
  const absl::Status foreign = FromGrpcStatus(
      grpc::Status(grpc::StatusCode::INTERNAL, "x", "\xff\xff not a container"));
  EXPECT_EQ(foreign.code(), absl::StatusCode::kInternal);
  EXPECT_FALSE(errors::IsMarkedDerived(foreign));
}

TEST(GrpcStatusTest, MessageSizeErrorsNameTheFlag) {
  for (const char* text : {"Received message larger than max (2000 vs. 1000)",
                           "Sent message larger than max (2000 vs. 1000)"}) {
    absl::Status s = FromGrpcStatus(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, text));
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_NE(s.message().find(text), absl::string_view::npos) << s;
    EXPECT_NE(s.message().find("--max-message-size"), absl::string_view::npos)
        << s;
    // Once is enough: a status that crosses several hops keeps one hint.
    absl::Status again = FromGrpcStatus(ToGrpcStatus(s));
    EXPECT_EQ(again.message(), s.message());
  }
  // Other ResourceExhausted errors (a kernel's OOM) stay as they are.
  absl::Status oom = FromGrpcStatus(
      grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "OOM when allocating"));
  EXPECT_EQ(oom.message(), "OOM when allocating");
}

}  // namespace
}  // namespace tributary
