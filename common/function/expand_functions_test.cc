// ExpandFunctionCalls: which nodes it replaces and with what (the values
// these graphs compute are checked against TensorFlow in
// tests/interop/functions_session_test.py), and its errors.

#include "common/function/expand_functions.h"

#include <map>
#include <string>

#include "absl/status/status.h"
#include "common/op/op_registry.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// plus_one(x: int32) -> y; is_small(x: int32) -> bool (x < 10);
// wrap(x) calls plus_one through a PartitionedCall; loop(x) calls itself.
const char kLibrary[] = R"pb(
  function {
    signature {
      name: "plus_one"
      input_arg { name: "x" type: DT_INT32 }
      output_arg { name: "y" type: DT_INT32 }
    }
    node_def {
      name: "one"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr {
        key: "value"
        value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } }
      }
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "x"
      input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    ret { key: "y" value: "add:z:0" }
  }
  function {
    signature {
      name: "is_small"
      input_arg { name: "x" type: DT_INT32 }
      output_arg { name: "b" type: DT_BOOL }
    }
    node_def {
      name: "ten"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr {
        key: "value"
        value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 10 } }
      }
    }
    node_def {
      name: "less"
      op: "Less"
      input: "x"
      input: "ten:output:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    ret { key: "b" value: "less:z:0" }
  }
  function {
    signature {
      name: "wrap"
      input_arg { name: "x" type: DT_INT32 }
      output_arg { name: "y" type: DT_INT32 }
    }
    node_def {
      name: "inner"
      op: "PartitionedCall"
      input: "x"
      attr { key: "Tin" value { list { type: DT_INT32 } } }
      attr { key: "Tout" value { list { type: DT_INT32 } } }
      attr { key: "f" value { func { name: "plus_one" } } }
    }
    ret { key: "y" value: "inner:output:0" }
  }
  function {
    signature {
      name: "step"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "limit" type: DT_INT32 }
      output_arg { name: "next" type: DT_INT32 }
      output_arg { name: "same" type: DT_INT32 }
    }
    node_def {
      name: "one"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr {
        key: "value"
        value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } }
      }
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "i"
      input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    node_def {
      name: "doubled_limit"
      op: "AddV2"
      input: "limit"
      input: "limit"
      attr { key: "T" value { type: DT_INT32 } }
    }
    node_def {
      name: "unused"
      op: "Neg"
      input: "doubled_limit:z:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    node_def {
      name: "kept"
      op: "Neg"
      input: "add:z:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    node_def {
      name: "limit_out"
      op: "Identity"
      input: "limit"
      input: "^kept"
      attr { key: "T" value { type: DT_INT32 } }
    }
    ret { key: "next" value: "add:z:0" }
    ret { key: "same" value: "limit_out:output:0" }
  }
  function {
    signature {
      name: "below"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "limit" type: DT_INT32 }
      output_arg { name: "b" type: DT_BOOL }
    }
    node_def {
      name: "less"
      op: "Less"
      input: "i"
      input: "limit"
      attr { key: "T" value { type: DT_INT32 } }
    }
    ret { key: "b" value: "less:z:0" }
  }
  function {
    signature {
      name: "loop"
      input_arg { name: "x" type: DT_INT32 }
      output_arg { name: "y" type: DT_INT32 }
    }
    node_def { name: "again" op: "loop" input: "x" }
    ret { key: "y" value: "again:y:0" }
  }
)pb";

tensorflow::GraphDef GraphWith(const std::string& nodes) {
  tensorflow::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      std::string(kLibrary), g.mutable_library()));
  tensorflow::GraphDef n;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(node {
             name: "x"
             op: "Placeholder"
             attr { key: "dtype" value { type: DT_INT32 } }
           }
      )pb" + nodes,
      &n));
  *g.mutable_node() = n.node();
  return g;
}

std::map<std::string, const tensorflow::NodeDef*> ByName(
    const tensorflow::GraphDef& g) {
  std::map<std::string, const tensorflow::NodeDef*> out;
  for (const auto& n : g.node()) out[n.name()] = &n;
  return out;
}

int CountOps(const tensorflow::GraphDef& g, const std::string& op) {
  int count = 0;
  for (const auto& n : g.node()) count += n.op() == op;
  return count;
}

TEST(ExpandFunctionsTest, GraphWithoutCallsIsUntouched) {
  tensorflow::GraphDef g = GraphWith("");
  const std::string before = g.SerializeAsString();
  EXPECT_FALSE(HasFunctionCalls(g));
  ASSERT_TRUE(ExpandFunctionCalls(*OpRegistry::Global(), &g).ok());
  EXPECT_EQ(g.SerializeAsString(), before);
}

TEST(ExpandFunctionsTest, NestedCallsAreInlinedAndCallerKeepsItsName) {
  tensorflow::GraphDef g = GraphWith(R"pb(
    node {
      name: "call"
      op: "StatefulPartitionedCall"
      input: "x"
      device: "/job:w/replica:0/task:0/device:CPU:0"
      attr { key: "Tin" value { list { type: DT_INT32 } } }
      attr { key: "Tout" value { list { type: DT_INT32 } } }
      attr { key: "f" value { func { name: "wrap" } } }
    }
    node { name: "by_name" op: "plus_one" input: "call" }
  )pb");
  ASSERT_TRUE(HasFunctionCalls(g));
  absl::Status s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  ASSERT_TRUE(s.ok()) << s;
  auto nodes = ByName(g);
  ASSERT_TRUE(nodes.count("call/inner/add"));
  EXPECT_EQ(nodes["call/inner/add"]->input(0), "x");
  EXPECT_EQ(nodes["call/inner/add"]->device(),
            "/job:w/replica:0/task:0/device:CPU:0");
  // Fetchable under the caller's name.
  EXPECT_EQ(nodes["call"]->op(), "IdentityN");
  EXPECT_EQ(nodes["call"]->input(0), "call/inner");
  EXPECT_EQ(nodes["call/inner"]->op(), "IdentityN");
  EXPECT_EQ(nodes["by_name"]->op(), "IdentityN");
  EXPECT_EQ(nodes["by_name/add"]->input(0), "call");
  // The Const, without inputs, waits for the call's first input.
  EXPECT_EQ(nodes["by_name/one"]->input(0), "^call");
  EXPECT_EQ(CountOps(g, "PartitionedCall") + CountOps(g, "plus_one"), 0);
}

TEST(ExpandFunctionsTest, WhileBecomesAFrame) {
  tensorflow::GraphDef g = GraphWith(R"pb(
    node {
      name: "w"
      op: "While"
      input: "x"
      attr { key: "T" value { list { type: DT_INT32 } } }
      attr { key: "cond" value { func { name: "is_small" } } }
      attr { key: "body" value { func { name: "plus_one" } } }
    }
  )pb");
  absl::Status s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  ASSERT_TRUE(s.ok()) << s;
  auto nodes = ByName(g);
  for (const char* op : {"Enter", "Merge", "Switch", "Exit", "NextIteration",
                         "LoopCond"}) {
    EXPECT_EQ(CountOps(g, op), 1) << op;
  }
  EXPECT_EQ(nodes["w/enter0"]->attr().at("frame_name").s(), "w");
  EXPECT_EQ(nodes["w/loop_cond"]->input(0), "w/cond/less");
  EXPECT_EQ(nodes["w/body/add"]->input(0), "w/body_input0");
  EXPECT_EQ(nodes["w/next_iteration0"]->input(0), "w/body/add");
  EXPECT_EQ(nodes["w/merge0"]->input(1), "w/next_iteration0");
  // Constants inside the frame hang off a loop node.
  EXPECT_EQ(nodes["w/cond/ten"]->input(0), "^w/merge0");
  EXPECT_EQ(nodes["w/body/one"]->input(0), "^w/body_input0");
  EXPECT_EQ(nodes["w"]->op(), "IdentityN");
  EXPECT_EQ(nodes["w"]->input(0), "w/exit0");
}

TEST(ExpandFunctionsTest, LoopInvariantsAreConstantEntersAndDeadNodesGo) {
  tensorflow::GraphDef g = GraphWith(R"pb(
    node {
      name: "w"
      op: "StatelessWhile"
      input: "x"
      input: "x"
      attr { key: "T" value { list { type: DT_INT32 type: DT_INT32 } } }
      attr { key: "cond" value { func { name: "below" } } }
      attr { key: "body" value { func { name: "step" } } }
    }
  )pb");
  absl::Status s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  ASSERT_TRUE(s.ok()) << s;
  auto nodes = ByName(g);
  // `limit` comes back unchanged: one constant Enter, no loop plumbing.
  EXPECT_TRUE(nodes["w/enter1"]->attr().at("is_constant").b());
  EXPECT_FALSE(nodes["w/enter0"]->attr().at("is_constant").b());
  EXPECT_EQ(nodes.count("w/merge1"), 0u);
  EXPECT_EQ(nodes.count("w/next_iteration1"), 0u);
  EXPECT_EQ(CountOps(g, "Merge"), 1);
  EXPECT_EQ(nodes["w/cond/less"]->input(1), "w/enter1");
  // The While's second output is its input.
  EXPECT_EQ(nodes["w"]->input(1), "x");
  // A body node reading only the invariant is gated like a Const: it must
  // not run in the iteration that leaves the loop.
  // Nothing uses it, though, so it is dropped with its consumer; `kept`
  // stays only through the invariant's unused ret, so it goes too.
  EXPECT_EQ(nodes.count("w/body/doubled_limit"), 0u);
  EXPECT_EQ(nodes.count("w/body/unused"), 0u);
  EXPECT_EQ(nodes.count("w/body/kept"), 0u);
  EXPECT_EQ(nodes.count("w/body/limit_out"), 0u);
  EXPECT_EQ(nodes["w/body/one"]->input(0), "^w/body_input0");
}

TEST(ExpandFunctionsTest, IfAndCaseSwitchEveryInput) {
  tensorflow::GraphDef g = GraphWith(R"pb(
    node {
      name: "p"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_BOOL } }
    }
    node {
      name: "if"
      op: "StatelessIf"
      input: "p"
      input: "x"
      attr { key: "Tcond" value { type: DT_BOOL } }
      attr { key: "Tin" value { list { type: DT_INT32 } } }
      attr { key: "Tout" value { list { type: DT_INT32 } } }
      attr { key: "then_branch" value { func { name: "plus_one" } } }
      attr { key: "else_branch" value { func { name: "wrap" } } }
      attr { key: "_lower_using_switch_merge" value { b: true } }
    }
    node {
      name: "case"
      op: "Case"
      input: "x"
      input: "x"
      attr { key: "Tin" value { list { type: DT_INT32 } } }
      attr { key: "Tout" value { list { type: DT_INT32 } } }
      attr {
        key: "branches"
        value {
          list {
            func { name: "plus_one" }
            func { name: "wrap" }
            func { name: "plus_one" }
          }
        }
      }
    }
  )pb");
  absl::Status s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  ASSERT_TRUE(s.ok()) << s;
  auto nodes = ByName(g);
  // A bool predicate lowered by TensorFlow's rule needs no ToBool.
  EXPECT_EQ(nodes["if/input0"]->op(), "Switch");
  EXPECT_EQ(nodes["if/input0"]->input(1), "p");
  EXPECT_EQ(nodes["if/branch1/add"]->input(0), "if/input0:1");  // then
  EXPECT_EQ(nodes["if/branch0/inner/add"]->input(0), "if/input0");  // else
  EXPECT_EQ(nodes["if/branch1/one"]->input(0), "^if/pivot1");
  EXPECT_EQ(nodes["if/output0"]->op(), "Merge");
  EXPECT_EQ(nodes["if"]->op(), "IdentityN");

  EXPECT_EQ(nodes["case/switch_index"]->op(), "_SwitchN");
  EXPECT_EQ(nodes["case/input0"]->attr().at("num_outs").i(), 3);
  EXPECT_EQ(nodes["case/branch2/add"]->input(0), "case/input0:2");
  EXPECT_EQ(nodes["case/output0"]->input_size(), 3);
}

TEST(ExpandFunctionsTest, Errors) {
  // Recursion.
  tensorflow::GraphDef g = GraphWith(R"pb(
    node { name: "r" op: "loop" input: "x" }
  )pb");
  absl::Status s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("recursive"), std::string::npos) << s;

  // A function missing from the library.
  g = GraphWith(R"pb(
    node {
      name: "c"
      op: "PartitionedCall"
      input: "x"
      attr { key: "Tin" value { list { type: DT_INT32 } } }
      attr { key: "Tout" value { list { type: DT_INT32 } } }
      attr { key: "f" value { func { name: "absent" } } }
    }
  )pb");
  s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("absent"), std::string::npos) << s;

  // Types that do not match the signature.
  g = GraphWith(R"pb(
    node {
      name: "c"
      op: "PartitionedCall"
      input: "x"
      attr { key: "Tin" value { list { type: DT_INT32 } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "plus_one" } } }
    }
  )pb");
  s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("plus_one"), std::string::npos) << s;

  // A call node missing a required attr.
  g = GraphWith(R"pb(
    node {
      name: "c"
      op: "While"
      input: "x"
      attr { key: "T" value { list { type: DT_INT32 } } }
      attr { key: "body" value { func { name: "plus_one" } } }
    }
  )pb");
  s = ExpandFunctionCalls(*OpRegistry::Global(), &g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

}  // namespace
}  // namespace tributary
