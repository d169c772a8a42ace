// StringToHashBucketFast against values TensorFlow 2.21 computed with
// tf.strings.to_hash_bucket_fast (farmhash Fingerprint64).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/embedding/embedding_test_util.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

Tensor Hash(const Tensor& input, int64_t buckets) {
  return embedding_test::RunNode(NodeDefBuilder("h", "StringToHashBucketFast")
                                     .Input("s")
                                     .Attr("num_buckets", buckets)
                                     .Build(),
                                 {input})[0];
}

TEST(StringToHashBucketFastTest, MatchesTensorFlow) {
  const Tensor input = AsTensor<std::string>(
      {"", "a", "hello", "embedding", "0123456789abcdef", std::string(33, 'x'),
       "a longer string that crosses sixty-four bytes of input, to hit the "
       "long path"},
      {7});
  test::ExpectTensorEqual<int64_t>(
      Hash(input, int64_t{1} << 62),
      AsTensor<int64_t>({1936946117179621455, 3694432073954588131,
                         3786372426573024488, 1961101222307844310,
                         1493332391325024359, 3046993373088323127,
                         3930470906404414035}));
  test::ExpectTensorEqual<int64_t>(Hash(input, 10),
                                   AsTensor<int64_t>({3, 9, 6, 0, 3, 5, 3}));
}

TEST(StringToHashBucketFastTest, KeepsShapeAndEmpty) {
  const Tensor out =
      Hash(AsTensor<std::string>({"a", "b", "c", "d"}, {2, 2}), 1);
  test::ExpectTensorEqual<int64_t>(out,
                                   AsTensor<int64_t>({0, 0, 0, 0}, {2, 2}));
  EXPECT_EQ(Hash(Tensor(DT_STRING, TensorShape({0, 3})), 5).shape(),
            TensorShape({0, 3}));
}

}  // namespace
}  // namespace tributary
