#include "tools/cli/zip_writer.h"

#include <cstdint>
#include <sstream>

#include "gtest/gtest.h"

namespace tributary {
namespace {

uint32_t Le32(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[pos + i]);
  return v;
}

uint16_t Le16(const std::string& s, size_t pos) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[pos]) |
                               (static_cast<uint8_t>(s[pos + 1]) << 8));
}

TEST(ZipWriterTest, Crc32MatchesTheCheckValue) {
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(Crc32(""), 0u);
  EXPECT_EQ(Crc32("6789", Crc32("12345")), 0xCBF43926u);
}

TEST(ZipWriterTest, WritesStoredEntriesAndDirectory) {
  std::ostringstream out;
  ASSERT_TRUE(
      WriteStoredZip({{"a.npy", "hello"}, {"dir/b.npy", ""}}, out).ok());
  const std::string zip = out.str();
  EXPECT_EQ(Le32(zip, 0), 0x04034b50u);
  EXPECT_EQ(Le16(zip, 8), 0);  // Stored.
  EXPECT_EQ(Le32(zip, 14), Crc32("hello"));
  EXPECT_EQ(Le32(zip, 18), 5u);
  EXPECT_EQ(zip.substr(30, 5), "a.npy");
  EXPECT_EQ(zip.substr(35, 5), "hello");
  // End of central directory: two entries, directory right after the data.
  const size_t end = zip.size() - 22;
  EXPECT_EQ(Le32(zip, end), 0x06054b50u);
  EXPECT_EQ(Le16(zip, end + 10), 2);
  const uint32_t dir_size = Le32(zip, end + 12),
                 dir_offset = Le32(zip, end + 16);
  EXPECT_EQ(dir_offset + dir_size, end);
  EXPECT_EQ(Le32(zip, dir_offset), 0x02014b50u);
  // The second central entry points at the second local header.
  const size_t second = dir_offset + 46 + 5;
  EXPECT_EQ(Le32(zip, second), 0x02014b50u);
  EXPECT_EQ(Le32(zip, Le32(zip, second + 42)), 0x04034b50u);
  EXPECT_EQ(zip.substr(second + 46, 9), "dir/b.npy");
}

TEST(ZipWriterTest, EmptyArchive) {
  std::ostringstream out;
  ASSERT_TRUE(WriteStoredZip({}, out).ok());
  EXPECT_EQ(out.str().size(), 22u);
}

TEST(ZipWriterTest, RefusesBadNames) {
  std::ostringstream out;
  EXPECT_EQ(WriteStoredZip({{"", "x"}}, out).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace tributary
