#include "tools/cli/npy_format.h"

#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// A .npy file with `dict` as its header, as numpy would lay it out (or not:
// the tests hand it lies on purpose).
std::string Npy(const std::string& dict, const std::string& data,
                int major = 1) {
  std::string header = dict + "\n";
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const uint32_t len = header.size();
  const int width = major == 1 ? 2 : 4;
  for (int i = 0; i < width; ++i)
    out.push_back(static_cast<char>(len >> (8 * i)));
  return out + header + data;
}

std::string Dict(const std::string& descr, const std::string& shape,
                 bool fortran = false) {
  return absl::StrCat("{'descr': '", descr,
                      "', 'fortran_order': ", fortran ? "True" : "False",
                      ", 'shape': ", shape, ", }");
}

template <typename T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()),
                     v.size() * sizeof(T));
}

absl::StatusCode Code(const std::string& file) {
  return DecodeNpy(file).status().code();
}

TEST(NpyFormatTest, ReadsLittleEndianFloat32) {
  auto t = DecodeNpy(Npy(Dict("<f4", "(2, 2)"), Bytes<float>({1, 2, 3, 4})));
  ASSERT_TRUE(t.ok()) << t.status();
  test::ExpectTensorEqual<float>(*t,
                                 test::AsTensor<float>({1, 2, 3, 4}, {2, 2}));
}

TEST(NpyFormatTest, ReadsVersions2And3) {
  for (int major : {2, 3}) {
    auto t =
        DecodeNpy(Npy(Dict("<i8", "(3,)"), Bytes<int64_t>({7, -8, 9}), major));
    ASSERT_TRUE(t.ok()) << t.status();
    test::ExpectTensorEqual<int64_t>(*t, test::AsTensor<int64_t>({7, -8, 9}));
  }
  EXPECT_EQ(Code(Npy(Dict("<i8", "(1,)"), Bytes<int64_t>({1}), 4)),
            absl::StatusCode::kInvalidArgument);
}

TEST(NpyFormatTest, ReadsBigEndian) {
  const std::string be_i32("\x00\x00\x01\x02\xff\xff\xff\xfe", 8);
  auto t = DecodeNpy(Npy(Dict(">i4", "(2,)"), be_i32));
  ASSERT_TRUE(t.ok()) << t.status();
  test::ExpectTensorEqual<int32_t>(*t, test::AsTensor<int32_t>({258, -2}));

  // Complex parts swap separately: 1.0f is 3f800000, 2.0f is 40000000.
  std::string be_c8("\x3f\x80\x00\x00\x40\x00\x00\x00", 8);
  auto c = DecodeNpy(Npy(Dict(">c8", "()"), be_c8));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->scalar<complex64>()(), complex64(1, 2));
}

TEST(NpyFormatTest, TransposesFortranOrder) {
  // The 2x3 array [[1,2,3],[4,5,6]] in column-major order.
  auto t = DecodeNpy(
      Npy(Dict("<f8", "(2, 3)", true), Bytes<double>({1, 4, 2, 5, 3, 6})));
  ASSERT_TRUE(t.ok()) << t.status();
  test::ExpectTensorEqual<double>(
      *t, test::AsTensor<double>({1, 2, 3, 4, 5, 6}, {2, 3}));

  // 2x2x2: element (i,j,k) at i + 2j + 4k in Fortran order.
  std::vector<int16_t> f(8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) f[i + 2 * j + 4 * k] = 100 * i + 10 * j + k;
  auto t3 = DecodeNpy(Npy(Dict("<i2", "(2, 2, 2)", true), Bytes(f)));
  ASSERT_TRUE(t3.ok()) << t3.status();
  test::ExpectTensorEqual<int16_t>(
      *t3,
      test::AsTensor<int16_t>({0, 1, 10, 11, 100, 101, 110, 111}, {2, 2, 2}));
}

TEST(NpyFormatTest, ReadsBoolAndNormalisesIt) {
  auto t = DecodeNpy(Npy(Dict("|b1", "(3,)"), std::string("\x00\x01\x07", 3)));
  ASSERT_TRUE(t.ok()) << t.status();
  test::ExpectTensorEqual<bool>(*t, test::AsTensor<bool>({false, true, true}));
}

TEST(NpyFormatTest, ReadsStrings) {
  auto s = DecodeNpy(Npy(Dict("|S3", "(2,)"), std::string("ab\0xyz", 6)));
  ASSERT_TRUE(s.ok()) << s.status();
  test::ExpectTensorEqual<std::string>(
      *s, test::AsTensor<std::string>({"ab", "xyz"}));

  // U2 "é" and "ab", little-endian UTF-32.
  std::string u = Bytes<uint32_t>({0xE9, 0, 'a', 'b'});
  auto t = DecodeNpy(Npy(Dict("<U2", "(2,)"), u));
  ASSERT_TRUE(t.ok()) << t.status();
  test::ExpectTensorEqual<std::string>(
      *t, test::AsTensor<std::string>({"\xC3\xA9", "ab"}));

  EXPECT_EQ(Code(Npy(Dict("<U1", "(1,)"), Bytes<uint32_t>({0xD800}))),
            absl::StatusCode::kInvalidArgument);
}

TEST(NpyFormatTest, RoundTripsEveryWritableDtype) {
  std::vector<Tensor> tensors = {
      test::AsTensor<float>({1.5f, -2, 3, 4, 5, 6}, {2, 3}),
      test::AsTensor<double>({0.1, 0.2}),
      test::AsTensor<half>({half(1.5f), half(-2.0f)}),
      test::AsTensor<int8_t>({-1, 2}),
      test::AsTensor<int16_t>({-300, 2}),
      test::AsTensor<int32_t>({1 << 30, -5}),
      test::AsTensor<int64_t>({int64_t{1} << 40}, {1, 1}),
      test::AsTensor<uint8_t>({255, 0}),
      test::AsTensor<uint16_t>({65535}),
      test::AsTensor<uint32_t>({4000000000u}),
      test::AsTensor<uint64_t>({~uint64_t{0}}),
      test::AsTensor<bool>({true, false, true}),
      test::AsTensor<complex64>({complex64(1, -1)}),
      test::AsTensor<complex128>({complex128(0.5, 2)}),
      test::AsTensor<std::string>({"a", "hello", ""}, {3}),
      test::AsTensor<float>({}, {0, 3}),
      test::AsScalar<int32_t>(42),
  };
  for (const Tensor& t : tensors) {
    auto npy = EncodeNpy(t);
    ASSERT_TRUE(npy.ok()) << npy.status();
    EXPECT_EQ((npy->find('\n') + 1) % 64, 0u) << "data not 64-byte aligned";
    auto back = DecodeNpy(*npy);
    ASSERT_TRUE(back.ok()) << back.status() << " for " << t.DebugString();
    EXPECT_EQ(back->dtype(), t.dtype());
    EXPECT_EQ(back->shape(), t.shape());
    EXPECT_EQ(back->DebugString(100), t.DebugString(100));
  }
}

TEST(NpyFormatTest, WritesNumpysHeader) {
  auto npy = EncodeNpy(test::AsTensor<float>({1, 2, 3}));
  ASSERT_TRUE(npy.ok());
  EXPECT_EQ(npy->substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(
      npy->find("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"),
      std::string::npos);
}

TEST(NpyFormatTest, WidensBfloat16ToFloat32) {
  auto npy = EncodeNpy(test::AsTensor<bfloat16>({bfloat16(1.5f)}));
  ASSERT_TRUE(npy.ok());
  auto back = DecodeNpy(*npy);
  ASSERT_TRUE(back.ok());
  test::ExpectTensorEqual<float>(*back, test::AsTensor<float>({1.5f}));
}

TEST(NpyFormatTest, RefusesUnwritableDtypes) {
  Tensor resource(tensorflow::DT_RESOURCE, TensorShape({}));
  EXPECT_EQ(EncodeNpy(resource).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(NpyFormatTest, RejectsMalformedFiles) {
  const std::string f4 = Bytes<float>({1, 2});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"empty", ""},
      {"no magic", "NUMPY\x01\x00" + f4},
      {"preamble cut", std::string("\x93NUMPY\x01", 7)},
      {"v2 preamble cut", std::string("\x93NUMPY\x02\x00\x10\x00", 10)},
      {"header longer than file", Npy(Dict("<f4", "(2,)"), "").substr(0, 30)},
      {"data truncated", Npy(Dict("<f4", "(2,)"), f4.substr(0, 7))},
      {"data too long", Npy(Dict("<f4", "(2,)"), f4 + "x")},
      {"header lies about size", Npy(Dict("<f4", "(3,)"), f4)},
      {"negative dim", Npy(Dict("<f4", "(-2,)"), f4)},
      {"huge shape", Npy(Dict("<f4", "(1000000000, 1000000000)"), f4)},
      {"count overflow", Npy(Dict("<f4", "(4294967296, 4294967296)"), f4)},
      {"dim overflow", Npy(Dict("<f4", "(99999999999999999999,)"), f4)},
      {"byte overflow", Npy(Dict("<f8", "(2305843009213693952,)"), f4)},
      {"U width overflow", Npy(Dict("<U999999999999", "(1,)"), f4)},
      {"S0", Npy(Dict("|S0", "(1000000000000,)"), "")},
      {"object array", Npy(Dict("|O", "(2,)"), f4)},
      {"structured",
       Npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
           f4)},
      {"long double", Npy(Dict("<f16", "(1,)"), f4 + f4)},
      {"datetime", Npy(Dict("<M8", "(1,)"), f4)},
      {"unknown key",
       Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
           f4)},
      {"missing key", Npy("{'descr': '<f4', 'shape': (2,)}", f4)},
      {"duplicate key", Npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': "
                            "False, 'shape': (2,)}",
                            f4)},
      {"not a dict", Npy("['<f4']", f4)},
      {"bad bool",
       Npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", f4)},
      {"unterminated string", Npy("{'descr: '<f4'", f4)},
      {"trailing text", Npy(Dict("<f4", "(2,)") + " junk", f4)},
      {"shape not a tuple", Npy(Dict("<f4", "[2]"), f4)},
  };
  for (const auto& [name, file] : cases) {
    EXPECT_EQ(Code(file), absl::StatusCode::kInvalidArgument) << name;
  }
  std::string many = "(";
  for (int i = 0; i < 300; ++i) many += "1, ";
  EXPECT_EQ(Code(Npy(Dict("<f4", many + ")"), Bytes<float>({1}))),
            absl::StatusCode::kInvalidArgument);
}

TEST(NpyFormatTest, ZeroDimsNeedNoData) {
  auto t = DecodeNpy(Npy(Dict("<f4", "(0, 4611686018427387904)"), ""));
  // Valid as numpy sees it, but no TensorShape holds that dim product
  // bound; either way it must not allocate or crash.
  if (t.ok()) EXPECT_EQ(t->NumElements(), 0);
  auto e = DecodeNpy(Npy(Dict("<f4", "(0, 3)"), ""));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), TensorShape({0, 3}));
}

// Every prefix of a valid file and random corruptions of it decode to a
// status or a tensor, never a crash (run under ASan to see more).
TEST(NpyFormatTest, FuzzedInputsNeverCrash) {
  auto valid = EncodeNpy(test::AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}));
  ASSERT_TRUE(valid.ok());
  for (size_t n = 0; n < valid->size(); ++n) {
    EXPECT_FALSE(DecodeNpy(valid->substr(0, n)).ok()) << n;
  }
  std::mt19937 rng(1234);
  for (int i = 0; i < 20000; ++i) {
    std::string file = *valid;
    const int flips = 1 + rng() % 4;
    for (int f = 0; f < flips; ++f) {
      // Mostly the header, where the parsing is.
      const size_t pos = rng() % (rng() % 4 == 0 ? file.size() : 80);
      file[pos] = static_cast<char>(rng() % 256);
    }
    (void)DecodeNpy(file);
  }
  // Header characters a numpy header is made of, shuffled.
  const std::string alphabet =
      "{}()[]',: -0123456789<>|fiuSUbcTrueFalsdescrhpo";
  for (int i = 0; i < 20000; ++i) {
    std::string dict;
    const int len = rng() % 80;
    for (int c = 0; c < len; ++c) dict += alphabet[rng() % alphabet.size()];
    (void)DecodeNpy(Npy(dict, Bytes<int32_t>({1, 2})));
  }
}

}  // namespace
}  // namespace tributary
