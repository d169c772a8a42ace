// InlineFunctionBody: renaming, input rewriting from the function form,
// placeholders, devices, gates and the errors of a malformed body.

#include "common/function/inline_function.h"

#include <string>

#include "absl/status/status.h"
#include "common/function/function_library.h"
#include "common/op/op_registry.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

tensorflow::FunctionDefLibrary ParseLibrary(const std::string& text) {
  tensorflow::FunctionDefLibrary lib;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &lib));
  return lib;
}

// f(x: float, ys: N * float) -> (sum: float, first: float):
// sum = AddN(ys) + x through IdentityN's outputs; a Const with no inputs.
const char kLibrary[] = R"pb(
  function {
    signature {
      name: "f"
      input_arg { name: "x" type: DT_FLOAT }
      input_arg { name: "ys" type: DT_FLOAT number_attr: "N" }
      output_arg { name: "sum" type: DT_FLOAT }
      output_arg { name: "first" type: DT_FLOAT }
      attr { name: "N" type: "int" }
      control_output: "effect"
    }
    node_def {
      name: "n"
      op: "AddN"
      input: "ys"
      attr { key: "N" value { placeholder: "N" } }
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node_def {
      name: "pair"
      op: "IdentityN"
      input: "n:sum:0"
      input: "x"
      attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } }
      device: "/device:CPU:0"
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "pair:output:0"
      input: "pair:output:1"
      input: "^c"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node_def {
      name: "c"
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "value"
        value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } }
      }
    }
    node_def { name: "effect" op: "NoOp" input: "^add" }
    ret { key: "sum" value: "add:z:0" }
    ret { key: "first" value: "ys:0" }
    control_ret { key: "effect" value: "effect" }
  }
)pb";

class InlineFunctionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_proto_ = ParseLibrary(kLibrary);
    auto lib = FunctionLibrary::Create(lib_proto_, *OpRegistry::Global());
    ASSERT_TRUE(lib.ok()) << lib.status();
    lib_ = std::make_unique<FunctionLibrary>(*std::move(lib));
    call_.prefix = "call";
    call_.args = {"a", "b:1", "b:2"};
    call_.gates = {"gate"};
    call_.device = "/job:worker/replica:0/task:1";
    call_.attrs["N"].set_i(2);
  }

  const tensorflow::NodeDef* Find(const InlinedBody& body,
                                  const std::string& name) {
    for (const auto& n : body.nodes) {
      if (n.name() == name) return &n;
    }
    return nullptr;
  }

  tensorflow::FunctionDefLibrary lib_proto_;
  std::unique_ptr<FunctionLibrary> lib_;
  CallSite call_;
};

TEST_F(InlineFunctionTest, RewritesNamesInputsAttrsAndDevices) {
  auto body = InlineFunctionBody(lib_proto_.function(0), call_, *lib_);
  ASSERT_TRUE(body.ok()) << body.status();
  ASSERT_EQ(body->nodes.size(), 5u);

  const tensorflow::NodeDef* n = Find(*body, "call/n");
  ASSERT_NE(n, nullptr);
  // The list argument expands to all of its tensors; N is bound.
  EXPECT_EQ(std::vector<std::string>(n->input().begin(), n->input().end()),
            (std::vector<std::string>{"b:1", "b:2"}));
  EXPECT_EQ(n->attr().at("N").i(), 2);
  EXPECT_EQ(n->device(), "/job:worker/replica:0/task:1");

  const tensorflow::NodeDef* pair = Find(*body, "call/pair");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->input(0), "call/n");
  EXPECT_EQ(pair->input(1), "a");
  // A partial device takes the caller's job and task.
  EXPECT_EQ(pair->device(), "/job:worker/replica:0/task:1/device:CPU:0");

  const tensorflow::NodeDef* add = Find(*body, "call/add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->input(0), "call/pair");
  EXPECT_EQ(add->input(1), "call/pair:1");
  EXPECT_EQ(add->input(2), "^call/c");

  // Only the input-less Const is gated.
  const tensorflow::NodeDef* c = Find(*body, "call/c");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->input_size(), 1);
  EXPECT_EQ(c->input(0), "^gate");

  EXPECT_EQ(body->rets, (std::vector<std::string>{"call/add", "b:1"}));
  EXPECT_EQ(body->control_rets, (std::vector<std::string>{"call/effect"}));
}

TEST_F(InlineFunctionTest, WrongArgumentCountIsInvalidArgument) {
  call_.args.pop_back();
  auto body = InlineFunctionBody(lib_proto_.function(0), call_, *lib_);
  EXPECT_EQ(body.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(body.status().message().find("'f'"), std::string::npos);
}

TEST_F(InlineFunctionTest, UnboundPlaceholderIsInvalidArgument) {
  call_.attrs.clear();
  auto body = InlineFunctionBody(lib_proto_.function(0), call_, *lib_);
  EXPECT_EQ(body.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(InlineFunctionTest, BadReferencesAreInvalidArgument) {
  for (const char* bad : {"nope", "n:nope:0", "n:sum:5", "pair:output"}) {
    tensorflow::FunctionDef f = lib_proto_.function(0);
    f.mutable_node_def(2)->set_input(0, bad);
    auto body = InlineFunctionBody(f, call_, *lib_);
    if (std::string(bad) == "pair:output") {
      // A whole output argument is legal; it just feeds two tensors into a
      // two-input op here, which graph import would reject.
      EXPECT_TRUE(body.ok()) << body.status();
      continue;
    }
    EXPECT_EQ(body.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(body.status().message().find(bad), std::string::npos) << bad;
  }
}

TEST_F(InlineFunctionTest, MissingRetAndUnknownOp) {
  tensorflow::FunctionDef f = lib_proto_.function(0);
  f.mutable_ret()->erase("sum");
  EXPECT_EQ(InlineFunctionBody(f, call_, *lib_).status().code(),
            absl::StatusCode::kInvalidArgument);

  f = lib_proto_.function(0);
  f.mutable_node_def(0)->set_op("NoSuchOp");
  auto body = InlineFunctionBody(f, call_, *lib_);
  EXPECT_EQ(body.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(body.status().message().find("NoSuchOp"), std::string::npos);
}

TEST(FunctionLibraryTest, RejectsNamesOfOpsAndConflictingDuplicates) {
  auto lib = ParseLibrary(R"pb(function { signature { name: "MatMul" } })pb");
  EXPECT_EQ(FunctionLibrary::Create(lib, *OpRegistry::Global()).status().code(),
            absl::StatusCode::kInvalidArgument);

  lib = ParseLibrary(R"pb(
    function { signature { name: "g" } }
    function { signature { name: "g" } }
  )pb");
  EXPECT_TRUE(FunctionLibrary::Create(lib, *OpRegistry::Global()).ok());
  lib.mutable_function(1)->mutable_signature()->set_is_stateful(true);
  EXPECT_EQ(FunctionLibrary::Create(lib, *OpRegistry::Global()).status().code(),
            absl::StatusCode::kInvalidArgument);

  lib = ParseLibrary(R"pb(function { signature {} })pb");
  EXPECT_EQ(FunctionLibrary::Create(lib, *OpRegistry::Global()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
