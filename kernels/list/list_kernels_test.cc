// The TensorList kernels chained by hand: reserve/set/get/stack, from-tensor,
// push/pop, element shapes, uninitialized elements, value semantics (an
// input list is never changed while someone else holds it) and the errors.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/framework/variant.h"
#include "gtest/gtest.h"
#include "kernels/list/tensor_list.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::NodeDefBuilder;

absl::StatusOr<std::vector<Tensor>> RunOp(const tensorflow::NodeDef& node,
                                          const std::vector<Tensor>& inputs) {
  return test::RunKernel(node, inputs);
}

Tensor RunOne(const tensorflow::NodeDef& node, const std::vector<Tensor>& in,
              int output = 0) {
  absl::StatusOr<std::vector<Tensor>> out = RunOp(node, in);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return Tensor();
  return (*out)[output];
}

Tensor I32(const std::vector<int32_t>& v) { return test::AsTensor<int32_t>(v); }
Tensor Scalar(int32_t v) { return test::AsScalar<int32_t>(v); }
Tensor F32(const std::vector<float>& v, const TensorShape& shape) {
  return test::AsTensor<float>(v, shape);
}

tensorflow::NodeDef Reserve(DataType dtype = DT_FLOAT) {
  return NodeDefBuilder("r", "TensorListReserve")
      .Input("s")
      .Input("n")
      .Attr("element_dtype", dtype)
      .Attr("shape_type", DT_INT32)
      .Build();
}
tensorflow::NodeDef SetItem(DataType dtype = DT_FLOAT) {
  return NodeDefBuilder("set", "TensorListSetItem")
      .Input("l")
      .Input("i")
      .Input("x")
      .Attr("element_dtype", dtype)
      .Build();
}
tensorflow::NodeDef GetItem(DataType dtype = DT_FLOAT) {
  return NodeDefBuilder("get", "TensorListGetItem")
      .Input("l")
      .Input("i")
      .Input("s")
      .Attr("element_dtype", dtype)
      .Build();
}
tensorflow::NodeDef Stack(DataType dtype = DT_FLOAT, int num = -1) {
  return NodeDefBuilder("stack", "TensorListStack")
      .Input("l")
      .Input("s")
      .Attr("element_dtype", dtype)
      .Attr("num_elements", num)
      .Build();
}
tensorflow::NodeDef FromTensor(DataType dtype = DT_FLOAT) {
  return NodeDefBuilder("from", "TensorListFromTensor")
      .Input("t")
      .Input("s")
      .Attr("element_dtype", dtype)
      .Attr("shape_type", DT_INT32)
      .Build();
}
tensorflow::NodeDef Empty(DataType dtype = DT_FLOAT) {
  return NodeDefBuilder("empty", "EmptyTensorList")
      .Input("s")
      .Input("max")
      .Attr("element_dtype", dtype)
      .Attr("shape_type", DT_INT32)
      .Build();
}
tensorflow::NodeDef PushBack(DataType dtype = DT_FLOAT) {
  return NodeDefBuilder("push", "TensorListPushBack")
      .Input("l")
      .Input("x")
      .Attr("element_dtype", dtype)
      .Build();
}
tensorflow::NodeDef PopBack(DataType dtype = DT_FLOAT) {
  return NodeDefBuilder("pop", "TensorListPopBack")
      .Input("l")
      .Input("s")
      .Attr("element_dtype", dtype)
      .Build();
}
tensorflow::NodeDef Length() {
  return NodeDefBuilder("len", "TensorListLength").Input("l").Build();
}
tensorflow::NodeDef ElementShape(DataType shape_type = DT_INT32) {
  return NodeDefBuilder("es", "TensorListElementShape")
      .Input("l")
      .Attr("shape_type", shape_type)
      .Build();
}

void ExpectInvalidArgument(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), text))
      << s.message() << "\nexpected: " << text;
}

TEST(TensorListTest, ReserveSetGetStack) {
  Tensor list = RunOne(Reserve(), {I32({2}), Scalar(3)});
  ASSERT_EQ(list.dtype(), DT_VARIANT);
  ASSERT_EQ(list.dims(), 0);
  EXPECT_EQ(RunOne(Length(), {list}).scalar<int32_t>()(), 3);
  Tensor set1 = RunOne(SetItem(), {list, Scalar(1), F32({1, 2}, {2})});
  Tensor set2 = RunOne(SetItem(), {set1, Scalar(2), F32({3, 4}, {2})});
  test::ExpectTensorEqual<float>(
      RunOne(GetItem(), {set2, Scalar(1), I32({-1})}), F32({1, 2}, {2}));
  // Element 0 was never set: zeros of the element shape.
  test::ExpectTensorEqual<float>(RunOne(GetItem(), {set2, Scalar(0), I32({2})}),
                                 F32({0, 0}, {2}));
  test::ExpectTensorEqual<float>(RunOne(Stack(DT_FLOAT, 3), {set2, I32({2})}),
                                 F32({0, 0, 1, 2, 3, 4}, {3, 2}));
  // Lists are values: set1 still has only element 1.
  test::ExpectTensorEqual<float>(RunOne(Stack(), {set1, I32({-1})}),
                                 F32({0, 0, 1, 2, 0, 0}, {3, 2}));
}

TEST(TensorListTest, UnknownShapeComesFromSetElements) {
  Tensor list = RunOne(Reserve(), {Scalar(-1), Scalar(2)});
  test::ExpectTensorEqual<int32_t>(RunOne(ElementShape(), {list}), Scalar(-1));
  ExpectInvalidArgument(
      RunOp(GetItem(), {list, Scalar(0), Scalar(-1)}).status(),
      "element_shape is not fully defined");
  ExpectInvalidArgument(
      RunOp(Stack(), {RunOne(Reserve(), {Scalar(-1), Scalar(0)}), Scalar(-1)})
          .status(),
      "empty list with non-fully-defined element_shape");
  Tensor set = RunOne(SetItem(), {list, Scalar(1), F32({5, 6, 7}, {1, 3})});
  test::ExpectTensorEqual<float>(
      RunOne(GetItem(), {set, Scalar(0), Scalar(-1)}), F32({0, 0, 0}, {1, 3}));
  test::ExpectTensorEqual<float>(RunOne(Stack(), {set, Scalar(-1)}),
                                 F32({0, 0, 0, 5, 6, 7}, {2, 1, 3}));
}

TEST(TensorListTest, FromTensorRowsAndStackBack) {
  const Tensor t = F32({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor list = RunOne(FromTensor(), {t, I32({-1})});
  EXPECT_EQ(RunOne(Length(), {list}).scalar<int32_t>()(), 3);
  test::ExpectTensorEqual<float>(RunOne(GetItem(), {list, Scalar(2), I32({2})}),
                                 F32({5, 6}, {2}));
  test::ExpectTensorEqual<float>(RunOne(Stack(), {list, I32({2})}), t);
  test::ExpectTensorEqual<int32_t>(RunOne(ElementShape(), {list}), I32({-1}));
  ExpectInvalidArgument(RunOp(FromTensor(), {t, I32({3})}).status(),
                        "Specified a list with shape [3] from a tensor with "
                        "shape [2]");
  ExpectInvalidArgument(
      RunOp(FromTensor(), {test::AsScalar<float>(1), Scalar(-1)}).status(),
      "Tensor must be at least a vector, but saw shape: []");
}

TEST(TensorListTest, PushBackPopBack) {
  Tensor list = RunOne(Empty(DT_INT32), {I32({-1}), Scalar(2)});
  Tensor one = RunOne(PushBack(DT_INT32), {list, I32({7})});
  Tensor two = RunOne(PushBack(DT_INT32), {one, I32({8})});
  ExpectInvalidArgument(RunOp(PushBack(DT_INT32), {two, I32({9})}).status(),
                        "Tried to push item into a full list");
  ExpectInvalidArgument(RunOp(PushBack(DT_INT32), {one, Scalar(9)}).status(),
                        "incompatible shape");
  absl::StatusOr<std::vector<Tensor>> popped =
      RunOp(PopBack(DT_INT32), {two, I32({-1})});
  ASSERT_TRUE(popped.ok()) << popped.status();
  test::ExpectTensorEqual<int32_t>((*popped)[1], I32({8}));
  EXPECT_EQ(RunOne(Length(), {(*popped)[0]}).scalar<int32_t>()(), 1);
  EXPECT_EQ(RunOne(Length(), {two}).scalar<int32_t>()(), 2);
  ExpectInvalidArgument(RunOp(PopBack(DT_INT32), {list, I32({-1})}).status(),
                        "Trying to pop from an empty list.");
  test::ExpectTensorEqual<int64_t>(RunOne(ElementShape(DT_INT64), {list}),
                                   test::AsTensor<int64_t>({-1}));
}

TEST(TensorListTest, StringElements) {
  Tensor list = RunOne(Reserve(DT_STRING), {I32({}), Scalar(2)});
  Tensor set = RunOne(SetItem(DT_STRING), {list, Scalar(0), Tensor("a")});
  Tensor stacked = RunOne(Stack(DT_STRING), {set, I32({})});
  ASSERT_EQ(stacked.shape(), TensorShape({2}));
  EXPECT_EQ(stacked.flat<std::string>()(0), "a");
  EXPECT_EQ(stacked.flat<std::string>()(1), "");
}

tensorflow::NodeDef Gather(DataType dtype) {
  return NodeDefBuilder("gather", "TensorListGather")
      .Input("l")
      .Input("i")
      .Input("s")
      .Attr("element_dtype", dtype)
      .Build();
}
tensorflow::NodeDef ConcatV2(DataType dtype) {
  return NodeDefBuilder("concat", "TensorListConcatV2")
      .Input("l")
      .Input("s")
      .Input("leading")
      .Attr("element_dtype", dtype)
      .Attr("shape_type", DT_INT32)
      .Build();
}
tensorflow::NodeDef Split(DataType dtype) {
  return NodeDefBuilder("split", "TensorListSplit")
      .Input("t")
      .Input("s")
      .Input("lengths")
      .Attr("element_dtype", dtype)
      .Attr("shape_type", DT_INT32)
      .Build();
}

// Strings move by value through gather, split and concat (the oracle test
// covers the numeric types against TensorFlow); an unset element reads "".
TEST(TensorListTest, StringElementsInBulk) {
  Tensor words(DT_STRING, TensorShape({3}));
  words.flat<std::string>()(0) = "alpha";
  words.flat<std::string>()(1) = "beta";
  words.flat<std::string>()(2) = "gamma";
  Tensor list = RunOne(Split(DT_STRING),
                       {words, I32({-1}), test::AsTensor<int64_t>({1, 2})});
  Tensor joined = RunOne(ConcatV2(DT_STRING),
                         {list, I32({-1}), test::AsTensor<int64_t>({})});
  ASSERT_EQ(joined.shape(), TensorShape({3}));
  EXPECT_EQ(joined.flat<std::string>()(2), "gamma");

  Tensor reserved = RunOne(Reserve(DT_STRING), {I32({}), Scalar(3)});
  Tensor set = RunOne(SetItem(DT_STRING), {reserved, Scalar(2), Tensor("z")});
  Tensor picked = RunOne(Gather(DT_STRING), {set, I32({2, 0, 2}), I32({})});
  ASSERT_EQ(picked.shape(), TensorShape({3}));
  EXPECT_EQ(picked.flat<std::string>()(0), "z");
  EXPECT_EQ(picked.flat<std::string>()(1), "");
  EXPECT_EQ(picked.flat<std::string>()(2), "z");
}

// A list of lists (nested loops' accumulators): Stack and Gather copy the
// inner lists as values, an unset element is an empty variant.
TEST(TensorListTest, VariantElements) {
  Tensor inner = RunOne(FromTensor(), {F32({1, 2, 3, 4}, {2, 2}), I32({-1})});
  Tensor outer = RunOne(Reserve(DT_VARIANT), {I32({}), Scalar(2)});
  Tensor set = RunOne(SetItem(DT_VARIANT), {outer, Scalar(1), inner});
  Tensor stacked = RunOne(Stack(DT_VARIANT), {set, I32({})});
  ASSERT_EQ(stacked.shape(), TensorShape({2}));
  EXPECT_EQ(stacked.flat<Variant>()(0).get<TensorList>(), nullptr);
  const TensorList* copied = stacked.flat<Variant>()(1).get<TensorList>();
  ASSERT_NE(copied, nullptr);
  ASSERT_EQ(copied->tensors.size(), 2u);
  test::ExpectTensorEqual<float>(copied->tensors[1], F32({3, 4}, {2}));
  Tensor gathered = RunOne(Gather(DT_VARIANT), {set, I32({1}), I32({})});
  ASSERT_NE(gathered.flat<Variant>()(0).get<TensorList>(), nullptr);
}

TEST(TensorListTest, Errors) {
  Tensor list = RunOne(Reserve(), {I32({2}), Scalar(2)});
  ExpectInvalidArgument(
      RunOp(GetItem(), {list, Scalar(2), I32({2})}).status(),
      "Trying to access element 2 in a list with 2 elements.");
  ExpectInvalidArgument(RunOp(GetItem(), {list, Scalar(-1), I32({2})}).status(),
                        "Trying to access element -1 in a list with 2 ");
  ExpectInvalidArgument(
      RunOp(SetItem(), {list, Scalar(5), F32({1, 2}, {2})}).status(),
      "Trying to modify element 5 in a list with 2 elements.");
  ExpectInvalidArgument(
      RunOp(SetItem(), {list, Scalar(0), F32({1, 2, 3}, {3})}).status(),
      "Tried to set a tensor with incompatible shape at a list index. Item "
      "element shape: [3] list shape: [2]");
  ExpectInvalidArgument(
      RunOp(GetItem(DT_INT32), {list, Scalar(0), I32({2})}).status(),
      "Invalid data types; op elements int32 but list "
      "elements float");
  ExpectInvalidArgument(RunOp(Stack(DT_FLOAT, 3), {list, I32({2})}).status(),
                        "Operation expected a list with 3 elements but got a "
                        "list with 2 elements.");
  ExpectInvalidArgument(RunOp(Reserve(), {I32({2}), Scalar(-1)}).status(),
                        "must be a non negative number, but got -1");
  ExpectInvalidArgument(
      RunOp(Length(), {Tensor(DT_VARIANT, TensorShape({}))}).status(),
      "Input handle is not a list");
  // resize_if_index_out_of_bounds grows the list instead.
  Tensor grown = RunOne(NodeDefBuilder("set", "TensorListSetItem")
                            .Input("l")
                            .Input("i")
                            .Input("x")
                            .Attr("element_dtype", DT_FLOAT)
                            .Attr("resize_if_index_out_of_bounds", true)
                            .Build(),
                        {list, Scalar(3), F32({1, 2}, {2})});
  EXPECT_EQ(RunOne(Length(), {grown}).scalar<int32_t>()(), 4);
}

}  // namespace
}  // namespace tributary
