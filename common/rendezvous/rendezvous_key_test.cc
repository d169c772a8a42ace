#include "common/rendezvous/rendezvous_key.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

constexpr char kSrc[] = "/job:mnist/replica:1/task:2/device:CPU:0";
constexpr char kDst[] = "/job:mnist/replica:1/task:2/device:CPU:1";

TEST(RendezvousKeyTest, CreateUsesTensorFlowFormat) {
  // The incarnation is 16 zero-padded hex digits, as TensorFlow's
  // _Send/_Recv kernels and master write it.
  EXPECT_EQ(CreateRendezvousKey(kSrc, 7890, kDst, "foo", FrameAndIter(0, 0)),
            "/job:mnist/replica:1/task:2/device:CPU:0;0000000000001ed2;"
            "/job:mnist/replica:1/task:2/device:CPU:1;foo;0:0");
  EXPECT_EQ(CreateRendezvousKey(kSrc, 0xFFFFFFFFFFFFFFFFull, kDst, "x:1",
                                FrameAndIter(3, 17)),
            absl::StrCat(kSrc, ";ffffffffffffffff;", kDst, ";x:1;3:17"));
  EXPECT_EQ(AppendFrameAndIter(CreateRendezvousKeyPrefix(kSrc, 1, kDst, "t"),
                               FrameAndIter(0, 2)),
            CreateRendezvousKey(kSrc, 1, kDst, "t", FrameAndIter(0, 2)));
}

TEST(RendezvousKeyTest, FrameIdIsWrittenUnsigned) {
  // TensorFlow's frame ids are uint64 hashes; a large one must print the same.
  EXPECT_EQ(CreateRendezvousKey(kSrc, 1, kDst, "t", FrameAndIter(-1, 4)),
            absl::StrCat(kSrc, ";0000000000000001;", kDst,
                         ";t;18446744073709551615:4"));
}

TEST(RendezvousKeyTest, ParseRoundTrip) {
  const std::string key =
      CreateRendezvousKey(kSrc, 7890, kDst, "edge_3_x:0", FrameAndIter(5, 9));
  RendezvousParsedKey parsed;
  ASSERT_TRUE(ParseRendezvousKey(key, &parsed).ok());
  EXPECT_EQ(parsed.FullKey(), key);
  EXPECT_EQ(parsed.src_device, kSrc);
  EXPECT_EQ(parsed.dst_device, kDst);
  EXPECT_EQ(parsed.edge_name, "edge_3_x:0");
  EXPECT_EQ(parsed.src_incarnation, 7890u);
  EXPECT_EQ(parsed.frame_iter, FrameAndIter(5, 9));
  EXPECT_EQ(parsed.src.job, "mnist");
  EXPECT_EQ(parsed.src.replica, 1);
  EXPECT_EQ(parsed.src.task, 2);
  EXPECT_EQ(parsed.src.type, "CPU");
  EXPECT_EQ(parsed.src.id, 0);
  EXPECT_EQ(parsed.dst.id, 1);

  absl::StatusOr<RendezvousParsedKey> again = ParseRendezvousKey(key);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->FullKey(), key);
}

TEST(RendezvousKeyTest, ShortHexSpellingIsCanonicalised) {
  // TensorFlow's Rendezvous::CreateKey writes "1ed2"; its kernels write
  // "0000000000001ed2". Both must name the same channel.
  RendezvousParsedKey parsed;
  ASSERT_TRUE(
      ParseRendezvousKey(absl::StrCat(kSrc, ";1ED2;", kDst, ";foo;0:0"), &parsed)
          .ok());
  EXPECT_EQ(parsed.src_incarnation, 0x1ed2u);
  EXPECT_EQ(parsed.FullKey(),
            CreateRendezvousKey(kSrc, 0x1ed2, kDst, "foo", FrameAndIter(0, 0)));
  EXPECT_EQ(parsed.edge_name, "foo");
}

TEST(RendezvousKeyTest, LegacyAndPartialDeviceNamesParse) {
  RendezvousParsedKey parsed;
  ASSERT_TRUE(
      ParseRendezvousKey("/job:a/replica:0/task:0/cpu:0;1;/cpu:1;t;0:0", &parsed)
          .ok());
  EXPECT_EQ(parsed.src.type, "CPU");
  EXPECT_EQ(parsed.dst.type, "CPU");
  EXPECT_EQ(parsed.dst.id, 1);
  EXPECT_EQ(parsed.src_device, "/job:a/replica:0/task:0/cpu:0");
}

TEST(RendezvousKeyTest, CopiesAndMovesKeepValidViews) {
  RendezvousParsedKey copy;
  {
    RendezvousParsedKey original;
    ASSERT_TRUE(ParseRendezvousKey(CreateRendezvousKey(kSrc, 3, kDst, "tensor",
                                                       FrameAndIter(0, 1)),
                                   &original)
                    .ok());
    copy = original;
    RendezvousParsedKey moved(std::move(original));
    EXPECT_EQ(moved.edge_name, "tensor");
    EXPECT_EQ(moved.src_device, kSrc);
  }  // original's buffer is gone; copy must not point into it
  EXPECT_EQ(copy.edge_name, "tensor");
  EXPECT_EQ(copy.src_device, kSrc);
  EXPECT_EQ(copy.dst_device, kDst);
  EXPECT_GE(copy.edge_name.data(), copy.FullKey().data());
  EXPECT_LE(copy.edge_name.data() + copy.edge_name.size(),
            copy.FullKey().data() + copy.FullKey().size());
}

TEST(RendezvousKeyTest, MalformedKeysAreInvalidArgument) {
  const std::string good_tail = absl::StrCat(";", kDst, ";foo;0:0");
  const std::string bad_keys[] = {
      "",
      "garbage",
      absl::StrCat(kSrc, ";1;", kDst, ";foo"),            // four parts
      absl::StrCat(kSrc, ";1;", kDst, ";foo;0:0;extra"),  // six parts
      absl::StrCat("no_slash;1", good_tail),               // bad src device
      absl::StrCat(";1", good_tail),                       // empty src device
      absl::StrCat(kSrc, ";xyz", good_tail),               // non-hex incarnation
      absl::StrCat(kSrc, ";", good_tail),                  // empty incarnation
      absl::StrCat(kSrc, ";00000000000000001", good_tail), // 17 hex digits
      absl::StrCat(kSrc, ";-1", good_tail),                // signed
      absl::StrCat(kSrc, ";1;/job:a/bogus:1;foo;0:0"),     // bad dst device
      absl::StrCat(kSrc, ";1;", kDst, ";;0:0"),            // empty tensor name
      absl::StrCat(kSrc, ";1;", kDst, ";foo;"),            // empty frame:iter
      absl::StrCat(kSrc, ";1;", kDst, ";foo;0"),           // no ':'
      absl::StrCat(kSrc, ";1;", kDst, ";foo;a:0"),         // non-numeric frame
      absl::StrCat(kSrc, ";1;", kDst, ";foo;0:b"),         // non-numeric iter
      absl::StrCat(kSrc, ";1;", kDst, ";foo; 0:0"),        // whitespace
      absl::StrCat(kSrc, ";1;", kDst, ";foo;0:1:2"),       // extra ':'
  };
  for (const std::string& key : bad_keys) {
    RendezvousParsedKey parsed;
    absl::Status s = ParseRendezvousKey(key, &parsed);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << key;
    EXPECT_NE(s.message().find("Invalid rendezvous key"), std::string::npos)
        << s;
    EXPECT_FALSE(ParseRendezvousKey(key).ok()) << key;
  }
}

TEST(RendezvousKeyTest, ErrorNamesTheBadPart) {
  absl::Status s =
      ParseRendezvousKey(absl::StrCat(kSrc, ";zz;", kDst, ";foo;0:0")).status();
  EXPECT_NE(s.message().find("incarnation 'zz'"), std::string::npos) << s;
  s = ParseRendezvousKey(absl::StrCat(kSrc, ";1;nodev;foo;0:0")).status();
  EXPECT_NE(s.message().find("destination device 'nodev'"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace tributary
