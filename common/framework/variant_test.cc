// Variant values and DT_VARIANT tensors: construction, copies, type checks,
// element lifetime, deep copies and the refusal to serialise.
#include "common/framework/variant.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_util.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// Counts live instances so the tests can see construction and destruction.
struct Counted {
  explicit Counted(int v) : value(v) { ++live; }
  Counted(const Counted& o) : value(o.value) { ++live; }
  ~Counted() { --live; }
  std::string TypeName() const { return "Counted"; }
  std::string DebugString() const { return absl::StrCat(value); }
  int value;
  static int live;
};
int Counted::live = 0;

struct Other {
  std::string TypeName() const { return "Other"; }
  std::string DebugString() const { return "other"; }
};

TEST(VariantTest, EmptyByDefault) {
  Variant v;
  EXPECT_TRUE(v.is_empty());
  EXPECT_EQ(v.get<Counted>(), nullptr);
  EXPECT_EQ(v.TypeName(), "");
  EXPECT_EQ(v.DebugString(), "Variant<empty>");
}

TEST(VariantTest, GetChecksTheType) {
  Variant v = Counted(7);
  ASSERT_NE(v.get<Counted>(), nullptr);
  EXPECT_EQ(v.get<Counted>()->value, 7);
  EXPECT_EQ(v.get<Other>(), nullptr);
  EXPECT_EQ(v.TypeName(), "Counted");
  EXPECT_EQ(v.DebugString(), "Variant<type: Counted value: 7>");
}

TEST(VariantTest, CopiesAreIndependentAndMovesSteal) {
  {
    Variant a = Counted(1);
    Variant b = a;
    b.get<Counted>()->value = 2;
    EXPECT_EQ(a.get<Counted>()->value, 1);
    EXPECT_EQ(Counted::live, 2);
    Variant c = std::move(a);
    EXPECT_TRUE(a.is_empty());  // NOLINT: moved-from is documented empty
    EXPECT_EQ(c.get<Counted>()->value, 1);
    EXPECT_EQ(Counted::live, 2);
    b = c;
    EXPECT_EQ(b.get<Counted>()->value, 1);
    EXPECT_EQ(Counted::live, 2);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(VariantTensorTest, ElementsLiveAndDieWithTheBuffer) {
  {
    Tensor t(DT_VARIANT, TensorShape({3}));
    ASSERT_TRUE(t.IsInitialized());
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(t.flat<Variant>()(i).is_empty());
    t.flat<Variant>()(1) = Counted(5);
    Tensor shared = t;  // same buffer, no copy of the elements
    EXPECT_EQ(Counted::live, 1);
    EXPECT_EQ(shared.flat<Variant>()(1).get<Counted>()->value, 5);
    Tensor deep = tensor::DeepCopy(t);
    EXPECT_EQ(Counted::live, 2);
    deep.flat<Variant>()(1).get<Counted>()->value = 6;
    EXPECT_EQ(t.flat<Variant>()(1).get<Counted>()->value, 5);
    EXPECT_NE(t.DebugString().find("Variant<type: Counted value: 5>"),
              std::string::npos);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(VariantTensorTest, SerialisingIsUnimplementedNotACrash) {
  Tensor t(DT_VARIANT, TensorShape({}));
  t.scalar<Variant>()() = Other();
  tensorflow::TensorProto content;
  t.AsProtoTensorContent(&content);
  EXPECT_EQ(content.dtype(), DT_VARIANT);
  EXPECT_TRUE(content.tensor_content().empty());
  tensorflow::TensorProto field;
  t.AsProtoField(&field);
  EXPECT_EQ(field.variant_val_size(), 0);
  absl::StatusOr<Tensor> back = Tensor::FromProto(field);
  EXPECT_EQ(back.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(back.status().message().find("variant"), std::string::npos);
}

}  // namespace
}  // namespace tributary
