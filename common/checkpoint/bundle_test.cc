// Round trips, corruption and slices of the tensor bundle reader and writer.
// Bit compatibility with TensorFlow itself is checked both ways by
// tests/interop/checkpoint_test.py.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/bundle_format.h"
#include "common/checkpoint/bundle_naming.h"
#include "common/checkpoint/bundle_reader.h"
#include "common/checkpoint/bundle_writer.h"
#include "common/checkpoint/file_io.h"
#include "common/checkpoint/merge_bundles.h"
#include "common/checkpoint/table_file.h"
#include "common/framework/tensor_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;

using ::testing::HasSubstr;

class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/bundle_test_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(CreateDirs(dir_).ok());
  }
  std::string Prefix(const std::string& name) { return dir_ + "/" + name; }

  // Writes name -> tensor as one bundle.
  void Write(const std::string& prefix,
             const std::vector<std::pair<std::string, Tensor>>& tensors) {
    BundleWriter writer(prefix);
    for (const auto& [name, t] : tensors) {
      ASSERT_TRUE(writer.Add(name, t).ok()) << name;
    }
    ASSERT_TRUE(writer.Finish().ok());
  }

  static void FlipByte(const std::string& path, uint64_t offset) {
    std::string data = *ReadFileToString(path);
    ASSERT_LT(offset, data.size());
    data[offset] ^= 0x20;
    ASSERT_TRUE(WriteStringToFile(path, data).ok());
  }
  static void Truncate(const std::string& path, uint64_t size) {
    std::string data = *ReadFileToString(path);
    data.resize(size);
    ASSERT_TRUE(WriteStringToFile(path, data).ok());
  }

  std::string dir_;
};

TEST_F(BundleTest, EveryDtypeRoundTrips) {
  std::vector<std::pair<std::string, Tensor>> tensors = {
      {"f32", AsTensor<float>({1.5f, -2, 3, 4}, TensorShape({2, 2}))},
      {"f64", AsTensor<double>({1e300, -0.0})},
      {"half", AsTensor<half>({half(1.5f), half(-3.0f)})},
      {"bf16", AsTensor<bfloat16>({bfloat16(2.5f)})},
      {"c64", AsTensor<complex64>({complex64(1, 2)})},
      {"c128", AsTensor<complex128>({complex128(3, -4)})},
      {"i8", AsTensor<int8_t>({-128, 127})},
      {"u8", AsTensor<uint8_t>({0, 255})},
      {"i16", AsTensor<int16_t>({-7})},
      {"u16", AsTensor<uint16_t>({65535})},
      {"i32", AsTensor<int32_t>({1, 2, 3})},
      {"u32", AsTensor<uint32_t>({4000000000u})},
      {"i64", AsTensor<int64_t>({-(int64_t{1} << 40)})},
      {"u64", AsTensor<uint64_t>({~uint64_t{0}})},
      {"bool", AsTensor<bool>({true, false, true})},
      {"str", AsTensor<std::string>({"", "a", std::string(300, 'x'),
                                      std::string("\0\xff", 2)})},
      {"scalar", AsScalar<float>(7)},
      {"str_scalar", AsScalar<std::string>("only")},
      {"empty", Tensor(DT_FLOAT, TensorShape({0, 3}))},
      {"empty_str", Tensor(DT_STRING, TensorShape({0}))},
  };
  Write(Prefix("all"), tensors);
  absl::StatusOr<std::unique_ptr<BundleReader>> reader =
      BundleReader::Open(Prefix("all"));
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->num_shards(), 1);
  for (const auto& [name, expected] : tensors) {
    absl::StatusOr<Tensor> got = (*reader)->Lookup(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status();
    EXPECT_EQ(got->dtype(), expected.dtype()) << name;
    EXPECT_EQ(got->shape(), expected.shape()) << name;
    if (expected.dtype() == DT_STRING) {
      for (int64_t i = 0; i < expected.NumElements(); ++i) {
        EXPECT_EQ(got->flat<std::string>()(i), expected.flat<std::string>()(i));
      }
    } else {
      EXPECT_EQ(got->tensor_data(), expected.tensor_data()) << name;
    }
  }
  // Entries are sorted, after the header; numbers are written in order added.
  std::vector<std::string> keys;
  ASSERT_TRUE((*reader)
                  ->ForEachEntry([&](absl::string_view key,
                                     const tensorflow::BundleEntryProto&) {
                    keys.emplace_back(key);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(keys.size(), tensors.size());
  EXPECT_FALSE(FileExists(Prefix("all") + ".data-00000-of-00001.tempstate"));
}

TEST_F(BundleTest, DuplicateKeyAndUnsavableDtype) {
  BundleWriter writer(Prefix("dup"));
  ASSERT_TRUE(writer.Add("a", AsScalar<float>(1)).ok());
  EXPECT_EQ(writer.Add("a", AsScalar<float>(2)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.Add("r", Tensor(DT_RESOURCE, TensorShape({}))).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(BundleTest, FlippedDataByteIsDataLossNamingTensorAndFile) {
  Write(Prefix("flip"), {{"a", AsTensor<float>({1, 2, 3})},
                         {"b", AsTensor<int32_t>({4, 5})}});
  const std::string data = DataFilename(Prefix("flip"), 0, 1);
  FlipByte(data, 13);  // inside b (a is 12 bytes)
  auto reader = *BundleReader::Open(Prefix("flip"));
  EXPECT_TRUE(reader->Lookup("a").ok());
  absl::StatusOr<Tensor> b = reader->Lookup("b");
  EXPECT_EQ(b.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(b.status().message(), HasSubstr("tensor b"));
  EXPECT_THAT(b.status().message(), HasSubstr(data));
  EXPECT_THAT(b.status().message(), HasSubstr("Checksum does not match"));
}

TEST_F(BundleTest, FlippedStringByteIsDataLoss) {
  Write(Prefix("sflip"), {{"s", AsTensor<std::string>({"hello", "world"})}});
  const std::string data = DataFilename(Prefix("sflip"), 0, 1);
  FlipByte(data, 8);  // a character (after 2 varints and 4 crc bytes)
  EXPECT_EQ((*BundleReader::Open(Prefix("sflip")))->Lookup("s").status().code(),
            absl::StatusCode::kDataLoss);
  Write(Prefix("lflip"), {{"s", AsTensor<std::string>({"hello", "world"})}});
  FlipByte(DataFilename(Prefix("lflip"), 0, 1), 0);  // a length
  absl::Status s = (*BundleReader::Open(Prefix("lflip")))->Lookup("s").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
}

TEST_F(BundleTest, TruncatedDataIsDataLoss) {
  Write(Prefix("short"), {{"a", AsTensor<float>({1, 2, 3, 4})}});
  Truncate(DataFilename(Prefix("short"), 0, 1), 10);
  absl::Status s = (*BundleReader::Open(Prefix("short")))->Lookup("a").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("truncated"));
  EXPECT_THAT(s.message(), HasSubstr("tensor a"));
}

TEST_F(BundleTest, CorruptOrTruncatedIndexIsDataLoss) {
  Write(Prefix("idx"), {{"a", AsTensor<float>({1, 2})}});
  const std::string index = MetaFilename(Prefix("idx"));
  const std::string good = *ReadFileToString(index);
  Truncate(index, good.size() - 5);
  absl::Status s = BundleReader::Open(Prefix("idx")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_THAT(s.message(), HasSubstr(index));
  ASSERT_TRUE(WriteStringToFile(index, good).ok());
  FlipByte(index, 3);  // inside the data block: its crc no longer matches
  absl::StatusOr<std::unique_ptr<BundleReader>> r = BundleReader::Open(Prefix("idx"));
  absl::Status s2 = r.ok() ? (*r)->Lookup("a").status() : r.status();
  EXPECT_EQ(s2.code(), absl::StatusCode::kDataLoss) << s2;
}

TEST_F(BundleTest, MissingIndexShardOrKeyIsNotFound) {
  EXPECT_EQ(BundleReader::Open(Prefix("nothing")).status().code(),
            absl::StatusCode::kNotFound);
  Write(Prefix("miss"), {{"a", AsTensor<float>({1})}});
  auto reader = *BundleReader::Open(Prefix("miss"));
  absl::Status key = reader->Lookup("zz").status();
  EXPECT_EQ(key.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(key.message(), HasSubstr("zz"));
  ASSERT_TRUE(DeleteFile(DataFilename(Prefix("miss"), 0, 1)).ok());
  auto reader2 = *BundleReader::Open(Prefix("miss"));
  absl::Status shard = reader2->Lookup("a").status();
  EXPECT_EQ(shard.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(shard.message(), HasSubstr(".data-00000-of-00001"));
}

TEST_F(BundleTest, HeaderChecks) {
  auto write_index = [&](const tensorflow::BundleHeaderProto& header) {
    std::map<std::string, std::string> table;
    table[""] = header.SerializeAsString();
    ASSERT_TRUE(
        WriteStringToFile(MetaFilename(Prefix("hdr")), *BuildTable(table)).ok());
  };
  tensorflow::BundleHeaderProto header = MakeHeader(1);
  header.set_endianness(tensorflow::BundleHeaderProto::BIG);
  write_index(header);
  EXPECT_EQ(BundleReader::Open(Prefix("hdr")).status().code(),
            absl::StatusCode::kUnimplemented);
  header = MakeHeader(1);
  header.mutable_version()->set_min_consumer(7);
  write_index(header);
  absl::Status s = BundleReader::Open(Prefix("hdr")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("consumer version 7"));
  write_index(MakeHeader(1));
  EXPECT_TRUE(BundleReader::Open(Prefix("hdr")).ok());
}

TEST_F(BundleTest, SlicesAssembleAndSplit) {
  // A 4x3 variable saved as two row partitions.
  const TensorShape full({4, 3});
  BundleWriter writer(Prefix("part"));
  ASSERT_TRUE(writer
                  .AddSlice("v", full, *TensorSlice::Parse("0,2:-"),
                            AsTensor<float>({0, 1, 2, 3, 4, 5}, TensorShape({2, 3})))
                  .ok());
  ASSERT_TRUE(writer
                  .AddSlice("v", full, *TensorSlice::Parse("2,2:-"),
                            AsTensor<float>({6, 7, 8, 9, 10, 11}, TensorShape({2, 3})))
                  .ok());
  ASSERT_TRUE(writer.Add("w", AsTensor<int32_t>({0, 1, 2, 3, 4, 5},
                                                TensorShape({2, 3})))
                  .ok());
  ASSERT_TRUE(writer.Finish().ok());
  auto reader = *BundleReader::Open(Prefix("part"));
  auto entry = *reader->Entry("v");
  EXPECT_EQ(entry.slices_size(), 2);
  ExpectTensorEqual<float>(
      *reader->Lookup("v"),
      AsTensor<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, full));
  // Across the partition boundary.
  ExpectTensorEqual<float>(
      *reader->LookupSlice("v", *TensorSlice::Parse("1,2:1,2")),
      AsTensor<float>({4, 5, 7, 8}, TensorShape({2, 2})));
  // Exactly one stored slice.
  ExpectTensorEqual<float>(
      *reader->LookupSlice("v", *TensorSlice::Parse("2,2:-")),
      AsTensor<float>({6, 7, 8, 9, 10, 11}, TensorShape({2, 3})));
  // A slice of a tensor stored whole.
  ExpectTensorEqual<int32_t>(
      *reader->LookupSlice("w", *TensorSlice::Parse("-:2,1")),
      AsTensor<int32_t>({2, 5}, TensorShape({2, 1})));
  EXPECT_EQ(reader->LookupSlice("v", *TensorSlice::Parse("3,2:-")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(BundleTest, MissingSliceIsInvalidArgument) {
  BundleWriter writer(Prefix("half"));
  ASSERT_TRUE(writer
                  .AddSlice("v", TensorShape({4}), *TensorSlice::Parse("0,2"),
                            AsTensor<float>({0, 1}))
                  .ok());
  ASSERT_TRUE(writer.Finish().ok());
  auto reader = *BundleReader::Open(Prefix("half"));
  absl::Status s = reader->Lookup("v").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("sufficient slices"));
  ExpectTensorEqual<float>(*reader->LookupSlice("v", *TensorSlice::Parse("1,1")),
                           AsTensor<float>({1}));
}

TEST_F(BundleTest, MergeShardedSave) {
  // Two devices' bundles, each with a plain tensor and a slice of "p".
  const std::string tmp = Prefix("ckpt_temp");
  const std::string p0 = tmp + "/part-00000-of-00002";
  const std::string p1 = tmp + "/part-00001-of-00002";
  {
    BundleWriter w(p0);
    ASSERT_TRUE(w.Add("a", AsTensor<float>({1, 2})).ok());
    ASSERT_TRUE(w.AddSlice("p", TensorShape({4}), *TensorSlice::Parse("0,2"),
                           AsTensor<int64_t>({10, 11}))
                    .ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  {
    BundleWriter w(p1);
    ASSERT_TRUE(w.Add("b", AsTensor<std::string>({"x", "yz"})).ok());
    ASSERT_TRUE(w.AddSlice("p", TensorShape({4}), *TensorSlice::Parse("2,2"),
                           AsTensor<int64_t>({12, 13}))
                    .ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  const std::string merged = Prefix("ckpt");
  ASSERT_TRUE(MergeBundles({p0, p1}, merged, false).ok());
  EXPECT_FALSE(FileExists(MetaFilename(p0)));
  EXPECT_TRUE(FileExists(DataFilename(merged, 1, 2)));
  auto reader = *BundleReader::Open(merged);
  EXPECT_EQ(reader->num_shards(), 2);
  ExpectTensorEqual<float>(*reader->Lookup("a"), AsTensor<float>({1, 2}));
  ExpectTensorEqual<std::string>(*reader->Lookup("b"),
                                 AsTensor<std::string>({"x", "yz"}));
  ExpectTensorEqual<int64_t>(*reader->Lookup("p"),
                             AsTensor<int64_t>({10, 11, 12, 13}));
  // Missing inputs.
  EXPECT_EQ(MergeBundles({Prefix("nope")}, Prefix("m2"), false).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(MergeBundles({Prefix("nope")}, Prefix("m2"), true).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(BundleTest, MergeRejectsDuplicateTensor) {
  Write(Prefix("d0"), {{"a", AsScalar<float>(1)}});
  Write(Prefix("d1"), {{"a", AsScalar<float>(2)}});
  absl::Status s = MergeBundles({Prefix("d0"), Prefix("d1")}, Prefix("dm"), false);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Duplicate tensor keyed by a"));
}

TEST_F(BundleTest, LargeTensorStreamsThroughBuffers) {
  // Bigger than two write buffers, so the writer thread takes several turns.
  Tensor big(DT_FLOAT, TensorShape({5 << 20}));
  float* p = big.flat<float>().data();
  for (int64_t i = 0; i < big.NumElements(); ++i) p[i] = static_cast<float>(i);
  Write(Prefix("big"), {{"big", big}, {"after", AsScalar<int32_t>(3)}});
  auto reader = *BundleReader::Open(Prefix("big"));
  Tensor got = *reader->Lookup("big");
  EXPECT_EQ(got.tensor_data(), big.tensor_data());
  ExpectTensorEqual<int32_t>(*reader->Lookup("after"), AsScalar<int32_t>(3));
}

}  // namespace
}  // namespace tributary
