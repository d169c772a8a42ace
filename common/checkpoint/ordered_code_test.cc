#include "common/checkpoint/ordered_code.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tributary {
namespace {

std::string Signed(int64_t v) {
  std::string s;
  ordered_code::WriteSignedNumIncreasing(&s, v);
  return s;
}

std::string Unsigned(uint64_t v) {
  std::string s;
  ordered_code::WriteNumIncreasing(&s, v);
  return s;
}

TEST(OrderedCodeTest, KnownEncodings) {
  // The examples of TensorFlow's ordered_code.cc.
  EXPECT_EQ(Signed(0x424242), std::string("\xf0\x42\x42\x42", 4));
  EXPECT_EQ(Signed(-0x800), std::string("\x38\x00", 2));
  EXPECT_EQ(Signed(0), std::string("\x80", 1));
  EXPECT_EQ(Signed(-1), std::string("\x7f", 1));
  EXPECT_EQ(Signed(63), std::string("\xbf", 1));
  EXPECT_EQ(Signed(64), std::string("\xc0\x40", 2));
  EXPECT_EQ(Unsigned(0), std::string("\x00", 1));
  EXPECT_EQ(Unsigned(2), std::string("\x01\x02", 2));
  EXPECT_EQ(Unsigned(0x1234), std::string("\x02\x12\x34", 3));
  std::string s;
  ordered_code::WriteString(&s, std::string("a\0b\xff", 4));
  EXPECT_EQ(s, std::string("a\x00\xff" "b\xff\x00\x00\x01", 8));
}

TEST(OrderedCodeTest, SignedRoundTripAndOrder) {
  std::vector<int64_t> values = {std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max(), 0, -1, 1};
  for (int shift = 0; shift < 63; ++shift) {
    const int64_t p = int64_t{1} << shift;
    for (int64_t v : {p, p - 1, p + 1, -p, -p - 1, -p + 1}) values.push_back(v);
  }
  for (const int64_t v : values) {
    std::string enc = Signed(v);
    absl::string_view in(enc);
    int64_t out = 0;
    ASSERT_TRUE(ordered_code::ReadSignedNumIncreasing(&in, &out)) << v;
    EXPECT_EQ(out, v);
    EXPECT_TRUE(in.empty()) << v;
  }
  for (const int64_t a : values) {
    for (const int64_t b : values) {
      EXPECT_EQ(a < b, Signed(a) < Signed(b)) << a << " " << b;
    }
  }
}

TEST(OrderedCodeTest, UnsignedAndStringRoundTrip) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{255}, uint64_t{256},
                     std::numeric_limits<uint64_t>::max()}) {
    std::string enc = Unsigned(v);
    absl::string_view in(enc);
    uint64_t out = 1;
    ASSERT_TRUE(ordered_code::ReadNumIncreasing(&in, &out));
    EXPECT_EQ(out, v);
  }
  const std::string name("part\0/\xff/x", 9);
  std::string enc;
  ordered_code::WriteString(&enc, name);
  absl::string_view in(enc);
  std::string out;
  ASSERT_TRUE(ordered_code::ReadString(&in, &out));
  EXPECT_EQ(out, name);
  absl::string_view bad("abc");
  EXPECT_FALSE(ordered_code::ReadString(&bad, &out));
}

}  // namespace
}  // namespace tributary
