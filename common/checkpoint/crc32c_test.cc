#include "common/checkpoint/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(Crc32cTest, StandardCheckValue) {
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c::Value("", 0), 0u);
  // RFC 3720 B.4: 32 bytes of zeros.
  const std::string zeros(32, '\0');
  EXPECT_EQ(crc32c::Value(zeros.data(), zeros.size()), 0x8A9136AAu);
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  const std::string s = "hello checkpoint world";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(crc32c::Extend(crc32c::Value(s.data(), cut), s.data() + cut,
                             s.size() - cut),
              crc32c::Value(s.data(), s.size()))
        << cut;
  }
}

TEST(Crc32cTest, MaskRoundTripsAndDiffers) {
  const uint32_t crc = crc32c::Value("foo", 3);
  EXPECT_NE(crc32c::Mask(crc), crc);
  EXPECT_NE(crc32c::Mask(crc32c::Mask(crc)), crc);
  EXPECT_EQ(crc32c::Unmask(crc32c::Mask(crc)), crc);
  EXPECT_EQ(crc32c::Unmask(crc32c::Unmask(crc32c::Mask(crc32c::Mask(crc)))),
            crc);
  EXPECT_EQ(crc32c::Mask(0), 0xa282ead8u);
}

}  // namespace
}  // namespace tributary
