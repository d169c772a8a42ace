#include "common/rpc/wire_reader.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tributary {
namespace {

// Splits `bytes` into chunks of `size` (with an empty chunk between each, to
// exercise skipping them).
std::vector<absl::string_view> Chunks(const std::string& bytes, size_t size) {
  std::vector<absl::string_view> chunks;
  for (size_t i = 0; i < bytes.size(); i += size) {
    chunks.push_back(absl::string_view(bytes).substr(i, size));
    chunks.push_back(absl::string_view());
  }
  return chunks;
}

TEST(WireReaderTest, VarintsAcrossEveryChunkBoundary) {
  const std::vector<uint64_t> values = {
      0, 1, 127, 128, 300, 1ull << 35, ~0ull, 0x7fffffff, 1ull << 63};
  std::string bytes;
  for (uint64_t v : values) AppendVarint(v, &bytes);
  for (size_t chunk = 1; chunk <= bytes.size(); ++chunk) {
    const auto chunks = Chunks(bytes, chunk);
    WireReader r(&chunks);
    for (uint64_t v : values) {
      uint64_t got;
      ASSERT_TRUE(r.ReadVarint64(&got)) << "chunk " << chunk;
      EXPECT_EQ(got, v);
    }
    EXPECT_EQ(r.remaining(), 0u);
    uint64_t got;
    EXPECT_FALSE(r.ReadVarint64(&got));
  }
}

TEST(WireReaderTest, VarintSizeMatchesEncoding) {
  for (uint64_t v : {0ull, 127ull, 128ull, 16383ull, 16384ull, ~0ull}) {
    std::string bytes;
    AppendVarint(v, &bytes);
    EXPECT_EQ(VarintSize(v), bytes.size());
  }
  EXPECT_EQ(TagSize(1), 1u);
  EXPECT_EQ(TagSize(16), 2u);
}

TEST(WireReaderTest, RejectsOverlongAndTruncatedVarints) {
  const std::string overlong(11, '\x80');
  std::vector<absl::string_view> chunks = {overlong};
  WireReader r(&chunks);
  uint64_t v;
  EXPECT_FALSE(r.ReadVarint64(&v));

  const std::string truncated = "\x80\x80";
  chunks = {truncated};
  WireReader t(&chunks);
  EXPECT_FALSE(t.ReadVarint64(&v));
}

TEST(WireReaderTest, TagsLengthsAndSkips) {
  std::string bytes;
  AppendTag(4, WireType::kLengthDelimited, &bytes);
  AppendVarint(5, &bytes);
  bytes += "hello";
  AppendTag(2, WireType::kVarint, &bytes);
  AppendVarint(1, &bytes);
  AppendTag(3, WireType::kFixed32, &bytes);
  bytes += std::string("\x01\x02\x03\x04", 4);
  AppendTag(5, WireType::kFixed64, &bytes);
  bytes += std::string("\x01\x00\x00\x00\x00\x00\x00\x80", 8);
  for (size_t chunk = 1; chunk <= bytes.size(); ++chunk) {
    const auto chunks = Chunks(bytes, chunk);
    WireReader r(&chunks);
    uint32_t field;
    WireType type;
    ASSERT_TRUE(r.ReadTag(&field, &type));
    EXPECT_EQ(field, 4u);
    EXPECT_EQ(type, WireType::kLengthDelimited);
    size_t n;
    ASSERT_TRUE(r.ReadLength(&n));
    const WireReader::Mark content = r.mark();
    ASSERT_TRUE(r.Skip(n));
    ASSERT_TRUE(r.ReadTag(&field, &type));
    EXPECT_EQ(field, 2u);
    ASSERT_TRUE(r.SkipValue(type, field));
    ASSERT_TRUE(r.ReadTag(&field, &type));
    uint32_t f32;
    ASSERT_TRUE(r.ReadFixed32(&f32));
    EXPECT_EQ(f32, 0x04030201u);
    ASSERT_TRUE(r.ReadTag(&field, &type));
    uint64_t f64;
    ASSERT_TRUE(r.ReadFixed64(&f64));
    EXPECT_EQ(f64, 0x8000000000000001ull);
    EXPECT_EQ(r.remaining(), 0u);

    // Back to the content, copied across chunks.
    std::string all;
    r.AppendRange(content, &all);
    EXPECT_EQ(all.size(), bytes.size() - content.pos);
    r.Seek(content);
    char hello[5];
    ASSERT_TRUE(r.CopyTo(hello, 5));
    EXPECT_EQ(std::string(hello, 5), "hello");
  }
}

TEST(WireReaderTest, LengthsBeyondTheInputAreRejected) {
  std::string bytes;
  AppendVarint(100, &bytes);
  bytes += "short";
  std::vector<absl::string_view> chunks = {bytes};
  WireReader r(&chunks);
  size_t n;
  EXPECT_FALSE(r.ReadLength(&n));
  WireReader s(&chunks);
  EXPECT_FALSE(s.Skip(1000));
  char buf[16];
  EXPECT_FALSE(s.CopyTo(buf, 16));
}

TEST(WireReaderTest, BadTagsAreRejected) {
  uint32_t field;
  WireType type;
  for (const std::string& bytes :
       {std::string("\x00", 1), std::string("\x0e"), std::string("\x0f")}) {
    std::vector<absl::string_view> chunks = {bytes};
    WireReader r(&chunks);
    EXPECT_FALSE(r.ReadTag(&field, &type)) << static_cast<int>(bytes[0]);
  }
  // A tag of more than 5 bytes, which protobuf refuses, even with a small
  // value ("89 80 80 80 80 00" is field 1, fixed64).
  const std::string six("\x89\x80\x80\x80\x80\x00", 6);
  std::vector<absl::string_view> six_chunks = {six};
  WireReader long_tag(&six_chunks);
  EXPECT_FALSE(long_tag.ReadTag(&field, &type));
}

// Protobuf's tag rule (found by tests/fuzz:tensor_coding_fuzzer): bits past
// 32 in a tag's fifth byte are dropped, not an error.
TEST(WireReaderTest, FifthTagByteBitsPast32AreDropped) {
  const std::string tag("\x09\x80\x80\x80\x30", 5);  // field 1, fixed64
  std::vector<absl::string_view> chunks = {tag};
  WireReader r(&chunks);
  uint32_t field;
  WireType type;
  ASSERT_TRUE(r.ReadTag(&field, &type));
  EXPECT_EQ(field, 1u);
  EXPECT_EQ(type, WireType::kFixed64);
}

// Unknown groups are skipped as protobuf keeps them: up to the end tag of
// the same field, nested groups included; a mismatched end tag, an end tag
// alone or nesting past 100 is an error.
TEST(WireReaderTest, GroupsAreSkippedToTheirEndTag) {
  uint32_t field;
  WireType type;
  auto skip = [&](const std::string& bytes) {
    std::vector<absl::string_view> chunks = {bytes};
    WireReader r(&chunks);
    if (!r.ReadTag(&field, &type) || !r.SkipValue(type, field)) return false;
    return r.remaining() == 0;
  };
  std::string group;
  AppendTag(7, WireType::kStartGroup, &group);
  AppendTag(1, WireType::kVarint, &group);
  AppendVarint(300, &group);
  AppendTag(2, WireType::kStartGroup, &group);
  AppendTag(2, WireType::kEndGroup, &group);
  AppendTag(7, WireType::kEndGroup, &group);
  EXPECT_TRUE(skip(group));

  std::string mismatched;
  AppendTag(7, WireType::kStartGroup, &mismatched);
  AppendTag(8, WireType::kEndGroup, &mismatched);
  EXPECT_FALSE(skip(mismatched));

  std::string alone;
  AppendTag(7, WireType::kEndGroup, &alone);
  EXPECT_FALSE(skip(alone));

  std::string deep;
  for (int i = 0; i < 101; ++i) AppendTag(1, WireType::kStartGroup, &deep);
  for (int i = 0; i < 101; ++i) AppendTag(1, WireType::kEndGroup, &deep);
  EXPECT_FALSE(skip(deep));

  std::string unterminated;
  AppendTag(7, WireType::kStartGroup, &unterminated);
  EXPECT_FALSE(skip(unterminated));
}

}  // namespace
}  // namespace tributary
