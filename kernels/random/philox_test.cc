// Philox4x32-10 against the published known-answer vectors (Random123's
// kat_vectors, which TensorFlow's generator also reproduces), plus the
// counter arithmetic, the bit conversions and the seed reservation rules.

#include "kernels/random/philox.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "kernels/random/distributions.h"
#include "kernels/random/guarded_philox.h"

namespace tributary {
namespace random {
namespace {

using Block = PhiloxRandom::ResultType;

TEST(PhiloxTest, KnownAnswerVectors) {
  struct Case {
    Block counter;
    PhiloxRandom::Key key;
    Block expected;
  };
  const Case cases[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Case& c : cases) {
    PhiloxRandom gen(c.counter, c.key);
    EXPECT_EQ(gen(), c.expected);
  }
}

TEST(PhiloxTest, SeedLayout) {
  PhiloxRandom gen(0x1122334455667788ull, 0x99aabbccddeeff00ull);
  EXPECT_EQ(gen.key(), (PhiloxRandom::Key{0x55667788, 0x11223344}));
  EXPECT_EQ(gen.counter(), (Block{0, 0, 0xddeeff00, 0x99aabbcc}));
  gen.ResetKey(7);
  EXPECT_EQ(gen.key(), (PhiloxRandom::Key{7, 0}));
  EXPECT_EQ(gen.counter(), (Block{0, 0, 0xddeeff00, 0x99aabbcc}));
}

TEST(PhiloxTest, SkipEqualsCalls) {
  PhiloxRandom a(42, 7), b(42, 7);
  for (int i = 0; i < 5; ++i) a();
  b.Skip(5);
  EXPECT_EQ(a(), b());
}

TEST(PhiloxTest, SkipCarriesAcrossWords) {
  PhiloxRandom gen(Block{0xffffffff, 0xffffffff, 0xffffffff, 0}, {1, 2});
  gen.Skip(1);
  EXPECT_EQ(gen.counter(), (Block{0, 0, 0, 1}));
  PhiloxRandom gen2(Block{0xfffffff0, 0xfffffffe, 5, 0}, {1, 2});
  gen2.Skip(0x0000000100000020ull);
  EXPECT_EQ(gen2.counter(), (Block{0x10, 0, 6, 0}));
  PhiloxRandom gen3(Block{0xffffffff, 0xffffffff, 0xffffffff, 3}, {1, 2});
  gen3();  // one call is one step of the 128-bit counter
  EXPECT_EQ(gen3.counter(), (Block{0, 0, 0, 4}));
}

TEST(PhiloxTest, SingleSampleAdapterKeepsUnusedWords) {
  PhiloxRandom gen(3, 4), copy(3, 4);
  SingleSampleAdapter<PhiloxRandom> words(&gen);
  const Block first = copy(), second = copy();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(words(), first[i]);
  EXPECT_EQ(words(), second[0]);
}

TEST(DistributionsTest, UnitIntervalConversions) {
  EXPECT_EQ(Uint32ToFloat(0), 0.0f);
  EXPECT_EQ(Uint32ToFloat(0xffffffff), 1.0f - 0x1p-23f);
  EXPECT_EQ(Uint32ToFloat(0x00400000), 0.5f);
  EXPECT_EQ(Uint64ToDouble(0, 0), 0.0);
  EXPECT_EQ(Uint64ToDouble(0xffffffff, 0xffffffff), 1.0 - 0x1p-52);
  EXPECT_EQ(static_cast<float>(Uint16ToHalf(0xffff)), 1.0f - 0x1p-10f);
  EXPECT_EQ(static_cast<float>(Uint16ToBfloat16(0xffff)), 1.0f - 0x1p-7f);
  EXPECT_EQ(static_cast<float>(Uint16ToHalf(0x200)), 0.5f);
}

TEST(DistributionsTest, BoxMullerClampsZero) {
  float f0, f1;
  BoxMullerFloat(0, 0, &f0, &f1);  // u1 = 0 -> epsilon, angle 0
  EXPECT_EQ(f0, 0.0f);
  EXPECT_GT(f1, 5.6f);  // sqrt(-2 log 1e-7) ~ 5.68
}

TEST(DistributionsTest, UniformIntStaysInRange) {
  PhiloxRandom gen(1, 2);
  UniformInt<int32_t> full(INT32_MIN, INT32_MAX);
  UniformInt<int64_t> small(-3, 4);
  for (int i = 0; i < 100; ++i) {
    for (int32_t v : full(&gen)) EXPECT_LT(v, INT32_MAX);
    for (int64_t v : small(&gen)) {
      EXPECT_GE(v, -3);
      EXPECT_LT(v, 4);
    }
  }
}

TEST(GuardedPhiloxTest, ReservationsAdvanceTheStream) {
  GuardedPhiloxRandom guarded;
  guarded.Init(5, 6);
  PhiloxRandom first = guarded.ReserveRandomOutputs(10, 256);
  PhiloxRandom second = guarded.ReserveSamples128(1);
  PhiloxRandom expected(5, 6);
  EXPECT_EQ(first.counter(), expected.counter());
  expected.Skip(2560);
  EXPECT_EQ(second.counter(), expected.counter());
  EXPECT_EQ(second.key(), expected.key());
}

TEST(GuardedPhiloxTest, UnseededStreamsDiffer) {
  GuardedPhiloxRandom a, b;
  a.Init(0, 0);
  b.Init(0, 0);
  PhiloxRandom ga = a.ReserveSamples128(1), gb = b.ReserveSamples128(1);
  EXPECT_NE(ga(), gb());
}

}  // namespace
}  // namespace random
}  // namespace tributary
