#include "tools/cli/feed_signature.h"

#include "common/framework/tensor.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

tensorflow::GraphDef Graph(const std::string& text) {
  tensorflow::GraphDef graph;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  return graph;
}

const char kGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 3 }
        }
      }
    }
  }
  node {
    name: "any"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "sq"
    op: "Square"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  versions { producer: 1000 }
)pb";

TEST(FeedSignatureTest, PlaceholderDtypeAndShape) {
  const FeedSignature sig = DeclaredFeedSignature(Graph(kGraph), "x");
  ASSERT_TRUE(sig.dtype.has_value());
  EXPECT_EQ(*sig.dtype, tensorflow::DT_FLOAT);
  ASSERT_TRUE(sig.shape.has_value());
  EXPECT_TRUE(
      CheckFeedSignature(Tensor(tensorflow::DT_FLOAT, TensorShape({5, 3})), sig)
          .ok());
  EXPECT_EQ(
      CheckFeedSignature(Tensor(tensorflow::DT_FLOAT, TensorShape({5, 2})), sig)
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      CheckFeedSignature(Tensor(tensorflow::DT_FLOAT, TensorShape({3})), sig)
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckFeedSignature(
                Tensor(tensorflow::DT_DOUBLE, TensorShape({1, 3})), sig)
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FeedSignatureTest, UnknownShapeMatchesAnything) {
  const FeedSignature sig = DeclaredFeedSignature(Graph(kGraph), "any");
  EXPECT_EQ(*sig.dtype, tensorflow::DT_INT32);
  EXPECT_TRUE(CheckFeedSignature(
                  Tensor(tensorflow::DT_INT32, TensorShape({2, 2, 2})), sig)
                  .ok());
}

TEST(FeedSignatureTest, NonPlaceholderHasOnlyADtype) {
  const FeedSignature sig = DeclaredFeedSignature(Graph(kGraph), "sq:0");
  EXPECT_EQ(*sig.dtype, tensorflow::DT_FLOAT);
  EXPECT_FALSE(sig.shape.has_value());
}

TEST(FeedSignatureTest, MissingNodeOrOutputDeclaresNothing) {
  EXPECT_FALSE(DeclaredFeedSignature(Graph(kGraph), "nope").dtype.has_value());
  EXPECT_FALSE(DeclaredFeedSignature(Graph(kGraph), "x:1").dtype.has_value());
}

TEST(FeedSignatureTest, OldGraphsScalarShapeIsUnknown) {
  const FeedSignature sig = DeclaredFeedSignature(Graph(R"pb(
                                                    node {
                                                      name: "x"
                                                      op: "Placeholder"
                                                      attr {
                                                        key: "dtype"
                                                        value { type: DT_FLOAT }
                                                      }
                                                      attr {
                                                        key: "shape"
                                                        value { shape {} }
                                                      }
                                                    }
                                                    versions { producer: 17 }
                                                  )pb"),
                                                  "x");
  EXPECT_FALSE(sig.shape.has_value());
}

}  // namespace
}  // namespace tributary
