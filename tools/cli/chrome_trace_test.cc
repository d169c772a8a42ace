#include "tools/cli/chrome_trace.h"

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(ChromeTraceTest, OneProcessPerDeviceAndOneEventPerNode) {
  tensorflow::StepStats stats;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        dev_stats {
          device: "/job:localhost/replica:0/task:0/device:CPU:0"
          node_stats {
            node_name: "mm"
            all_start_micros: 1000
            all_start_nanos: 1000000000
            op_start_rel_nanos: 1000
            op_end_rel_nanos: 3000
            all_end_rel_nanos: 4000
            thread_id: 7
            output {
              slot: 0
              tensor_description {
                dtype: DT_FLOAT
                shape {
                  dim { size: 2 }
                  dim { size: 3 }
                }
              }
            }
          }
        }
        dev_stats {
          device: "/job:localhost/replica:0/task:0/device:CPU:1"
          node_stats {
            node_name: "add"
            all_start_micros: 1000002
            all_end_rel_micros: 5
          }
        }
      )pb",
      &stats));
  nlohmann::json trace = StepStatsToChromeTrace(stats, {{"mm", "MatMul"}});
  const auto& events = trace["traceEvents"];
  int complete = 0;
  for (const auto& e : events) {
    if (e["ph"] != "X") continue;
    ++complete;
    if (e["args"]["name"] == "mm") {
      EXPECT_EQ(e["name"], "MatMul");
      EXPECT_EQ(e["pid"], 0);
      EXPECT_EQ(e["tid"], 7);
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 4.0);
      EXPECT_DOUBLE_EQ(e["args"]["compute_us"].get<double>(), 2.0);
      EXPECT_EQ(e["args"]["output0"], "DT_FLOAT [2,3]");
    } else {
      EXPECT_EQ(e["name"], "add");  // No op known: the node name.
      EXPECT_EQ(e["pid"], 1);
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 2.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 5.0);
    }
  }
  EXPECT_EQ(complete, 2);
  int names = 0;
  for (const auto& e : events) names += e["name"] == "process_name";
  EXPECT_EQ(names, 2);
}

TEST(ChromeTraceTest, TheOpThatRanWinsOverTheClientGraphs) {
  // The optimizer fused a Conv2D chain under the Relu's name.
  tensorflow::StepStats stats;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        dev_stats {
          device: "/job:localhost/replica:0/task:0/device:CPU:0"
          node_stats {
            node_name: "block/relu"
            all_start_micros: 1
            timeline_label: "block/relu = _FusedConv2D(x, w, b)"
          }
          node_stats {
            node_name: "odd"
            all_start_micros: 2
            timeline_label: "not the executor's format"
          }
        }
      )pb",
      &stats));
  nlohmann::json trace =
      StepStatsToChromeTrace(stats, {{"block/relu", "Relu"}, {"odd", "Neg"}});
  int complete = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    if (e["args"]["name"] == "block/relu") {
      EXPECT_EQ(e["name"], "_FusedConv2D");
      EXPECT_EQ(e["args"]["op"], "_FusedConv2D");
    } else {
      EXPECT_EQ(e["name"], "Neg");
    }
  }
  EXPECT_EQ(complete, 2);
}

}  // namespace
}  // namespace tributary
