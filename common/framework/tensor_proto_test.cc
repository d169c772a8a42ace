// Tensor <-> TensorProto: both encodings for every dtype, TensorFlow's
// repeat-the-last-value rule, and every error FromProto reports.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/framework/failing_allocator.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using tensorflow::TensorProto;

TensorProto MakeProto(DataType dtype, std::initializer_list<int64_t> dims) {
  TensorProto p;
  p.set_dtype(dtype);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

// Round-trips `t` through both encodings and checks the typed field used.
template <typename T>
void CheckRoundTrips(const Tensor& t, int (TensorProto::*field_size)() const) {
  TensorProto content;
  t.AsProtoTensorContent(&content);
  EXPECT_EQ(content.dtype(), t.dtype());
  EXPECT_FALSE(content.tensor_content().empty());
  absl::StatusOr<Tensor> back = Tensor::FromProto(content);
  ASSERT_TRUE(back.ok()) << back.status();
  test::ExpectTensorEqual<T>(*back, t);
  EXPECT_TRUE(back->IsAligned());

  TensorProto field;
  t.AsProtoField(&field);
  EXPECT_TRUE(field.tensor_content().empty());
  EXPECT_GT((field.*field_size)(), 0) << DataTypeString(t.dtype());
  back = Tensor::FromProto(field);
  ASSERT_TRUE(back.ok()) << back.status();
  test::ExpectTensorEqual<T>(*back, t);
}

TEST(TensorProtoTest, RoundTripsEveryDtype) {
  const TensorShape shape({2, 2});
  CheckRoundTrips<float>(test::AsTensor<float>({1.5f, -2, 0, 1e30f}, shape),
                         &TensorProto::float_val_size);
  CheckRoundTrips<double>(test::AsTensor<double>({1.5, -2, 0, 1e300}, shape),
                          &TensorProto::double_val_size);
  CheckRoundTrips<int32_t>(
      test::AsTensor<int32_t>({1, -2, std::numeric_limits<int32_t>::min(), 7}, shape),
      &TensorProto::int_val_size);
  CheckRoundTrips<int64_t>(
      test::AsTensor<int64_t>({1, -2, std::numeric_limits<int64_t>::max(), 7}, shape),
      &TensorProto::int64_val_size);
  CheckRoundTrips<bool>(test::AsTensor<bool>({true, false, false, true}, shape),
                        &TensorProto::bool_val_size);
  CheckRoundTrips<uint8_t>(test::AsTensor<uint8_t>({0, 1, 200, 255}, shape),
                           &TensorProto::int_val_size);
  CheckRoundTrips<int8_t>(test::AsTensor<int8_t>({0, -1, -128, 127}, shape),
                          &TensorProto::int_val_size);
  CheckRoundTrips<int16_t>(test::AsTensor<int16_t>({0, -1, -32768, 32767}, shape),
                           &TensorProto::int_val_size);
  CheckRoundTrips<uint16_t>(test::AsTensor<uint16_t>({0, 1, 40000, 65535}, shape),
                            &TensorProto::int_val_size);
  CheckRoundTrips<uint32_t>(test::AsTensor<uint32_t>({0, 1, 4000000000u, 5}, shape),
                            &TensorProto::uint32_val_size);
  CheckRoundTrips<uint64_t>(
      test::AsTensor<uint64_t>({0, 1, std::numeric_limits<uint64_t>::max(), 5}, shape),
      &TensorProto::uint64_val_size);
  CheckRoundTrips<std::string>(
      test::AsTensor<std::string>({"", "a", std::string(300, 'z'), std::string("\0x", 2)},
                                  shape),
      &TensorProto::string_val_size);
  CheckRoundTrips<half>(
      test::AsTensor<half>({half(1.5f), half(-2.0f), half(0.0f), half(65504.0f)}, shape),
      &TensorProto::half_val_size);
  CheckRoundTrips<bfloat16>(test::AsTensor<bfloat16>({bfloat16(1.5f), bfloat16(-2.0f),
                                                      bfloat16(0.0f), bfloat16(3e38f)},
                                                     shape),
                            &TensorProto::half_val_size);
  CheckRoundTrips<complex64>(
      test::AsTensor<complex64>({{1, 2}, {3, 4}, {0, 0}, {-1, -2}}, shape),
      &TensorProto::scomplex_val_size);
  CheckRoundTrips<complex128>(
      test::AsTensor<complex128>({{1, 2}, {3, 4}, {0, 0}, {-1, -2}}, shape),
      &TensorProto::dcomplex_val_size);
}

TEST(TensorProtoTest, ScalarAndEmptyTensors) {
  CheckRoundTrips<float>(Tensor(3.0f), &TensorProto::float_val_size);
  Tensor empty(DT_FLOAT, TensorShape({0, 3}));
  TensorProto p;
  empty.AsProtoTensorContent(&p);
  EXPECT_TRUE(p.tensor_content().empty());
  absl::StatusOr<Tensor> back = Tensor::FromProto(p);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->shape(), TensorShape({0, 3}));
  empty.AsProtoField(&p);
  EXPECT_EQ(p.float_val_size(), 0);
  EXPECT_TRUE(Tensor::FromProto(p).ok());
}

TEST(TensorProtoTest, WireFormatMatchesTensorFlow) {
  // Raw little-endian element bytes.
  Tensor f = test::AsTensor<float>({1.0f, 2.0f});
  TensorProto p;
  f.AsProtoTensorContent(&p);
  float expected[2] = {1.0f, 2.0f};
  EXPECT_EQ(p.tensor_content(),
            std::string(reinterpret_cast<char*>(expected), sizeof(expected)));
  EXPECT_EQ(p.tensor_shape().dim(0).size(), 2);
  // Strings: every length as a varint32, then the bytes.
  Tensor s = test::AsTensor<std::string>({"a", "bc", std::string(200, 'x')});
  s.AsProtoTensorContent(&p);
  std::string want = std::string("\x01\x02\xc8\x01", 4) + "abc" + std::string(200, 'x');
  EXPECT_EQ(p.tensor_content(), want);
  // half travels as its 16 bits in half_val.
  Tensor h = test::AsTensor<half>({half(1.0f)});
  h.AsProtoField(&p);
  ASSERT_EQ(p.half_val_size(), 1);
  EXPECT_EQ(p.half_val(0), 0x3c00);
}

TEST(TensorProtoTest, FewerValuesRepeatTheLast) {
  TensorProto p = MakeProto(DT_FLOAT, {2, 3});
  p.add_float_val(1);
  p.add_float_val(2);
  absl::StatusOr<Tensor> t = Tensor::FromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  test::ExpectTensorEqual<float>(
      *t, test::AsTensor<float>({1, 2, 2, 2, 2, 2}, TensorShape({2, 3})));

  TensorProto s = MakeProto(DT_STRING, {3});
  s.add_string_val("x");
  t = Tensor::FromProto(s);
  ASSERT_TRUE(t.ok());
  test::ExpectTensorEqual<std::string>(*t, test::AsTensor<std::string>({"x", "x", "x"}));

  TensorProto i8 = MakeProto(DT_INT8, {4});
  i8.add_int_val(-5);
  t = Tensor::FromProto(i8);
  ASSERT_TRUE(t.ok());
  test::ExpectTensorEqual<int8_t>(*t, test::AsTensor<int8_t>({-5, -5, -5, -5}));

  TensorProto c = MakeProto(DT_COMPLEX64, {2});
  c.add_scomplex_val(1);
  c.add_scomplex_val(-1);
  t = Tensor::FromProto(c);
  ASSERT_TRUE(t.ok());
  test::ExpectTensorEqual<complex64>(*t, test::AsTensor<complex64>({{1, -1}, {1, -1}}));
}

TEST(TensorProtoTest, TensorContentWinsOverTypedValues) {
  TensorProto p = MakeProto(DT_INT32, {1});
  const int32_t seven = 7;
  p.set_tensor_content(std::string(reinterpret_cast<const char*>(&seven), 4));
  p.add_int_val(3);  // ignored, like TensorFlow
  absl::StatusOr<Tensor> t = Tensor::FromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->flat<int32_t>()(0), 7);
}

TEST(TensorProtoTest, NoValuesMeanZeros) {
  absl::StatusOr<Tensor> t = Tensor::FromProto(MakeProto(DT_INT32, {3}));
  ASSERT_TRUE(t.ok());
  test::ExpectTensorEqual<int32_t>(*t, test::AsTensor<int32_t>({0, 0, 0}));
  t = Tensor::FromProto(MakeProto(DT_STRING, {2}));
  ASSERT_TRUE(t.ok());
  test::ExpectTensorEqual<std::string>(*t, test::AsTensor<std::string>({"", ""}));
  t = Tensor::FromProto(MakeProto(DT_BOOL, {}));
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->scalar<bool>()());
}

TEST(TensorProtoTest, QuantizedTypesUseIntVal) {
  TensorProto p = MakeProto(tensorflow::DT_QUINT8, {2});
  p.add_int_val(200);
  p.add_int_val(3);
  absl::StatusOr<Tensor> t = Tensor::FromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(static_cast<const uint8_t*>(t->data())[0], 200);
  TensorProto back;
  t->AsProtoField(&back);
  EXPECT_EQ(back.int_val(0), 200);
}

TEST(TensorProtoTest, UsesTheGivenAllocator) {
  std::unique_ptr<Allocator> a = NewCPUAllocator();
  TensorProto p = MakeProto(DT_DOUBLE, {4});
  p.add_double_val(1);
  {
    absl::StatusOr<Tensor> t = Tensor::FromProto(p, a.get());
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(a->GetStats().bytes_in_use, 32);
  }
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
}

void ExpectInvalid(const TensorProto& p, const std::string& fragment) {
  absl::StatusOr<Tensor> t = Tensor::FromProto(p);
  ASSERT_FALSE(t.ok()) << p.DebugString();
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find(fragment), std::string::npos)
      << t.status().message();
}

TEST(TensorProtoTest, ContentSizeMismatch) {
  TensorProto p = MakeProto(DT_FLOAT, {2, 3});
  p.set_tensor_content(std::string(20, '\0'));
  ExpectInvalid(p, "20 bytes of tensor_content; expected 24");
  p.set_tensor_content(std::string(28, '\0'));
  ExpectInvalid(p, "expected 24");
  TensorProto empty = MakeProto(DT_INT32, {0});
  empty.set_tensor_content("abcd");
  ExpectInvalid(empty, "expected 0");
}

TEST(TensorProtoTest, MoreValuesThanElements) {
  TensorProto p = MakeProto(DT_FLOAT, {2});
  for (int i = 0; i < 3; ++i) p.add_float_val(i);
  ExpectInvalid(p, "3 values in float_val, more than its 2 elements");
  TensorProto s = MakeProto(DT_STRING, {});
  s.add_string_val("a");
  s.add_string_val("b");
  ExpectInvalid(s, "string_val");
  TensorProto z = MakeProto(DT_INT64, {0});
  z.add_int64_val(1);
  ExpectInvalid(z, "more than its 0 elements");
}

TEST(TensorProtoTest, OddComplexValueCount) {
  TensorProto p = MakeProto(DT_COMPLEX64, {1});
  p.add_scomplex_val(1);
  ExpectInvalid(p, "pairs");
  TensorProto d = MakeProto(DT_COMPLEX128, {1});
  d.add_dcomplex_val(1);
  d.add_dcomplex_val(2);
  d.add_dcomplex_val(3);
  ExpectInvalid(d, "pairs");
}

TEST(TensorProtoTest, BadShapes) {
  ExpectInvalid(MakeProto(DT_FLOAT, {-2}), "invalid tensor_shape");
  ExpectInvalid(MakeProto(DT_FLOAT, {-1, 2}), "unknown");
  ExpectInvalid(MakeProto(DT_FLOAT, {std::numeric_limits<int64_t>::max(), 2}),
                "overflow");
  TensorProto unknown_rank = MakeProto(DT_FLOAT, {});
  unknown_rank.mutable_tensor_shape()->set_unknown_rank(true);
  ExpectInvalid(unknown_rank, "unknown rank");
}

TEST(TensorProtoTest, UnsupportedDtypes) {
  ExpectInvalid(MakeProto(DT_INVALID, {1}), "dtype INVALID, which a Tensor cannot hold");
  ExpectInvalid(MakeProto(DT_FLOAT_REF, {1}), "float_ref");
  // Variants exist in memory (TensorLists) but have no wire form here yet.
  absl::StatusOr<Tensor> variant = Tensor::FromProto(MakeProto(DT_VARIANT, {1}));
  ASSERT_FALSE(variant.ok());
  EXPECT_EQ(variant.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(variant.status().message().find("variant"), std::string::npos)
      << variant.status().message();
  ExpectInvalid(MakeProto(static_cast<DataType>(99), {1}), "unknown dtype enum (99)");
}

TEST(TensorProtoTest, MalformedStringContent) {
  TensorProto p = MakeProto(DT_STRING, {2});
  p.set_tensor_content(std::string("\x01\x02", 2) + "ab");  // needs 3 bytes
  ExpectInvalid(p, "add up to 3 bytes but 2 bytes follow");
  p.set_tensor_content(std::string("\x01\x01", 2) + "abc");  // one byte extra
  ExpectInvalid(p, "add up to 2 bytes but 3");
  p.set_tensor_content(std::string("\x01\x80", 2));  // truncated varint
  ExpectInvalid(p, "malformed length for string 1");
  p.set_tensor_content(std::string("\xff\xff\xff\xff\xff\x01", 6));  // too long
  ExpectInvalid(p, "malformed length for string 0");
}

TEST(TensorProtoTest, BoolContentIsNormalised) {
  // Bytes other than 0/1 are not valid bools in C++; they read as true.
  TensorProto p = MakeProto(DT_BOOL, {3});
  p.set_tensor_content(std::string("\x00\x01\x07", 3));
  absl::StatusOr<Tensor> t = Tensor::FromProto(p);
  ASSERT_TRUE(t.ok());
  const uint8_t* bytes = static_cast<const uint8_t*>(t->data());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 1);
  EXPECT_EQ(bytes[2], 1);
}

TEST(TensorProtoTest, AllocationFailureIsResourceExhausted) {
  test::FailingAllocator failing;
  TensorProto p = MakeProto(DT_FLOAT, {1000});
  absl::StatusOr<Tensor> t = Tensor::FromProto(p, &failing);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(t.status().message().find("failing"), std::string::npos);
}

}  // namespace
TEST(TensorProtoTest, ResourceHandlesRoundTripInResourceHandleVal) {
  Tensor t(DT_RESOURCE, TensorShape({2}));
  t.flat<ResourceHandle>()(0).set_container("localhost");
  t.flat<ResourceHandle>()(0).set_name("w");
  t.flat<ResourceHandle>()(1).set_name("b");
  for (bool content : {true, false}) {
    tensorflow::TensorProto proto;
    if (content) {
      t.AsProtoTensorContent(&proto);
    } else {
      t.AsProtoField(&proto);
    }
    EXPECT_TRUE(proto.tensor_content().empty());
    ASSERT_EQ(proto.resource_handle_val_size(), 2);
    absl::StatusOr<Tensor> back = Tensor::FromProto(proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->flat<ResourceHandle>()(0).container(), "localhost");
    EXPECT_EQ(back->flat<ResourceHandle>()(0).name(), "w");
    EXPECT_EQ(back->flat<ResourceHandle>()(1).name(), "b");
  }
}

TEST(TensorProtoTest, ResourceHandlesInTensorContentAreInvalid) {
  tensorflow::TensorProto proto = MakeProto(DT_RESOURCE, {1});
  proto.set_tensor_content("abcd");
  EXPECT_EQ(Tensor::FromProto(proto).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace tributary
