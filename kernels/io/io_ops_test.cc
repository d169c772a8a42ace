// The checkpoint kernels on their own: SaveV2 then RestoreV2 (whole, sliced,
// errors that produce no outputs), MergeV2Checkpoints of a sharded save, the
// filename and string helpers. Compatibility with TensorFlow's files is
// tests/interop/checkpoint_test.py's.
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/bundle_naming.h"
#include "common/checkpoint/file_io.h"
#include "common/framework/file_access_policy.h"
#include "common/framework/tensor_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;
using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::NodeDefBuilder;

std::string TmpDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/io_ops_test_", name);
}

Tensor Strings(const std::vector<std::string>& v) {
  return AsTensor<std::string>(v, TensorShape({static_cast<int64_t>(v.size())}));
}

absl::Status Save(const std::string& prefix, const std::vector<std::string>& names,
                  const std::vector<std::string>& specs,
                  const std::vector<Tensor>& values) {
  std::vector<DataType> dtypes;
  for (const Tensor& t : values) dtypes.push_back(t.dtype());
  std::vector<Tensor> inputs = {AsScalar<std::string>(prefix), Strings(names),
                                Strings(specs)};
  inputs.insert(inputs.end(), values.begin(), values.end());
  return test::RunKernel(NodeDefBuilder("save", "SaveV2")
                             .Inputs(static_cast<int>(inputs.size()))
                             .Attr("dtypes", dtypes)
                             .Build(),
                         inputs)
      .status();
}

absl::StatusOr<std::vector<Tensor>> Restore(
    const std::string& prefix, const std::vector<std::string>& names,
    const std::vector<std::string>& specs, const std::vector<DataType>& dtypes) {
  return test::RunKernel(
      NodeDefBuilder("restore", "RestoreV2").Inputs(3).Attr("dtypes", dtypes).Build(),
      {AsScalar<std::string>(prefix), Strings(names), Strings(specs)});
}

TEST(SaveRestoreV2Test, WholeAndSliced) {
  const std::string prefix = TmpDir("whole") + "/model.ckpt";
  ASSERT_TRUE(Save(prefix, {"w", "s", "part"}, {"", "", "4 2 2,2:-"},
                   {AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2})),
                    AsTensor<std::string>({"a", "bc"}),
                    AsTensor<int64_t>({5, 6, 7, 8}, TensorShape({2, 2}))})
                  .ok());
  auto out = Restore(prefix, {"w", "s", "w"}, {"", "", "2 2 1,1:-"},
                     {DT_FLOAT, DT_STRING, DT_FLOAT});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual<float>((*out)[0], AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  ExpectTensorEqual<std::string>((*out)[1], AsTensor<std::string>({"a", "bc"}));
  ExpectTensorEqual<float>((*out)[2], AsTensor<float>({3, 4}, TensorShape({1, 2})));
  // Only rows 2..3 of "part" were saved.
  auto part = Restore(prefix, {"part"}, {"4 2 2,2:-"}, {DT_INT64});
  ASSERT_TRUE(part.ok()) << part.status();
  ExpectTensorEqual<int64_t>((*part)[0],
                             AsTensor<int64_t>({5, 6, 7, 8}, TensorShape({2, 2})));
  auto whole = Restore(prefix, {"part"}, {""}, {DT_INT64});
  EXPECT_EQ(whole.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SaveRestoreV2Test, ErrorsNameTensorAndProduceNothing) {
  const std::string prefix = TmpDir("errors") + "/ckpt";
  ASSERT_TRUE(Save(prefix, {"a", "b"}, {"", ""},
                   {AsTensor<float>({1}), AsTensor<int32_t>({2})})
                  .ok());
  auto dtype = Restore(prefix, {"a", "b"}, {"", ""}, {DT_FLOAT, DT_FLOAT});
  EXPECT_EQ(dtype.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dtype.status().message(),
              HasSubstr("tensor_name = b; expected dtype float does not equal "
                        "original dtype int32"));
  auto missing = Restore(prefix, {"a", "zz"}, {"", ""}, {DT_FLOAT, DT_FLOAT});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("zz"));
  auto shape = Restore(prefix, {"a"}, {"3 0,1"}, {DT_FLOAT});
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.status().message(), HasSubstr("does not match the shape"));
  auto nofile = Restore(TmpDir("errors") + "/other", {"a"}, {""}, {DT_FLOAT});
  EXPECT_EQ(nofile.status().code(), absl::StatusCode::kNotFound);
  // A slice spec that disagrees with the saved tensor's shape.
  EXPECT_EQ(Save(prefix + "2", {"a"}, {"4 0,2"}, {AsTensor<float>({1})}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MergeV2CheckpointsTest, MergesAndDeletesTempDirs) {
  const std::string dir = TmpDir("merge");
  const std::string p0 = dir + "/ckpt_temp/part-00000-of-00002";
  const std::string p1 = dir + "/ckpt_temp/part-00001-of-00002";
  ASSERT_TRUE(Save(p0, {"a"}, {""}, {AsTensor<float>({1})}).ok());
  ASSERT_TRUE(Save(p1, {"b"}, {""}, {AsTensor<float>({2})}).ok());
  auto merged = test::RunKernel(
      NodeDefBuilder("merge", "MergeV2Checkpoints").Inputs(2).Build(),
      {Strings({p0, p1}), AsScalar<std::string>(dir + "/ckpt")});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_FALSE(FileExists(dir + "/ckpt_temp"));
  EXPECT_TRUE(FileExists(dir + "/ckpt.data-00001-of-00002"));
  auto out = Restore(dir + "/ckpt", {"a", "b"}, {"", ""}, {DT_FLOAT, DT_FLOAT});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual<float>((*out)[1], AsTensor<float>({2}));
}

TEST(FilenameAndStringOpsTest, MatchTensorFlow) {
  auto name = test::RunKernel(NodeDefBuilder("n", "ShardedFilename").Inputs(3).Build(),
                              {AsScalar<std::string>("/d/model"),
                               AsScalar<int32_t>(3), AsScalar<int32_t>(12)});
  ASSERT_TRUE(name.ok());
  EXPECT_EQ((*name)[0].scalar<std::string>()(), "/d/model-00003-of-00012");
  auto spec = test::RunKernel(NodeDefBuilder("n", "ShardedFilespec").Inputs(2).Build(),
                              {AsScalar<std::string>("m"), AsScalar<int32_t>(2)});
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ((*spec)[0].scalar<std::string>()(), "m-?????-of-00002");
  auto joined = test::RunKernel(
      NodeDefBuilder("j", "StringJoin").Inputs(2).Attr("N", int64_t{2})
          .Attr("separator", std::string("/")).Build(),
      {AsScalar<std::string>("x"), Strings({"a", "b"})});
  ASSERT_TRUE(joined.ok()) << joined.status();
  ExpectTensorEqual<std::string>((*joined)[0], Strings({"x/a", "x/b"}));
  auto match = test::RunKernel(
      NodeDefBuilder("m", "StaticRegexFullMatch").Input("s")
          .Attr("pattern", std::string("^s3://.*")).Build(),
      {Strings({"s3://bucket/x", "/tmp/s3://", ""})});
  ASSERT_TRUE(match.ok()) << match.status();
  ExpectTensorEqual<bool>((*match)[0], AsTensor<bool>({true, false, false}));
}

// --allowed-path (docs/limits.md): the kernels ask the session's
// FileAccessPolicy before touching a file.
TEST(CheckpointFileAccessTest, OnlyUnderAllowedDirectories) {
  const std::string allowed = TmpDir("allowed");
  const std::string outside = TmpDir("outside");
  ASSERT_TRUE(CreateDirs(allowed).ok());
  ASSERT_TRUE(CreateDirs(outside).ok());
  absl::StatusOr<FileAccessPolicy> policy = FileAccessPolicy::Create({allowed});
  ASSERT_TRUE(policy.ok()) << policy.status();

  auto run = [&](const tensorflow::NodeDef& def,
                 const std::vector<Tensor>& inputs) {
    test::KernelRunner runner;
    runner.set_file_access(&*policy);
    absl::Status s = runner.Init(def);
    if (!s.ok()) return s;
    return runner.Run(inputs).status();
  };
  auto save = [&](const std::string& prefix) {
    return run(NodeDefBuilder("save", "SaveV2").Inputs(4)
                   .Attr("dtypes", std::vector<DataType>{DT_FLOAT}).Build(),
               {AsScalar<std::string>(prefix), Strings({"v"}), Strings({""}),
                AsTensor<float>({1, 2})});
  };
  auto restore = [&](const std::string& prefix) {
    return run(NodeDefBuilder("restore", "RestoreV2").Inputs(3)
                   .Attr("dtypes", std::vector<DataType>{DT_FLOAT}).Build(),
               {AsScalar<std::string>(prefix), Strings({"v"}), Strings({""})});
  };

  EXPECT_TRUE(save(allowed + "/model.ckpt").ok());
  EXPECT_TRUE(restore(allowed + "/model.ckpt").ok());
  // Written unrestricted, outside: the restricted session can't read it.
  ASSERT_TRUE(Save(outside + "/model.ckpt", {"v"}, {""}, {AsTensor<float>({1})}).ok());
  for (const std::string& bad :
       {outside + "/model.ckpt", allowed + "/../" + outside.substr(outside.rfind('/') + 1) + "/model.ckpt"}) {
    absl::Status s = save(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(bad));
    EXPECT_THAT(std::string(s.message()), HasSubstr("--allowed-path"));
    EXPECT_THAT(std::string(s.message()), HasSubstr("SaveV2"));
    s = restore(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  }
  // Nothing was written outside by the refused save.
  EXPECT_FALSE(FileExists(outside + "/denied.ckpt.index"));
  EXPECT_EQ(save(outside + "/denied.ckpt").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(FileExists(outside + "/denied.ckpt.index"));

  // MergeV2Checkpoints: inputs and destination alike.
  auto merge = [&](const std::string& in, const std::string& dest) {
    return run(NodeDefBuilder("merge", "MergeV2Checkpoints").Inputs(2)
                   .Attr("delete_old_dirs", false).Build(),
               {Strings({in}), AsScalar<std::string>(dest)});
  };
  EXPECT_EQ(merge(allowed + "/model.ckpt", outside + "/merged").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(merge(outside + "/model.ckpt", allowed + "/merged").code(),
            absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace tributary
