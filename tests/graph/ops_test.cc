// The ops written as several IR nodes or lowered by the generalised Pool
// and the Pad op: executor against the interpreter node by node on random
// inputs, hand-computed values on constant inputs (folded at import), and
// the refusals.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/workload.h"
#include "graph/executor/compiled_model.h"
#include "graph/lower/evaluate_node.h"
#include "graph/model/model.h"
#include "graph/onnx/import.h"
#include "tests/graph/model_testing.h"
#include "tests/graph/onnx_builder.h"

namespace tuneforge::graph {
namespace {

using ::testing::HasSubstr;

// The values of output `o` of a model whose inputs are all initializers.
std::vector<double> Folded(const testing::OnnxBuilder& b, int o = 0) {
  auto g = ImportOnnxModel(b.model());
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  const Value& v = g->values[g->outputs[o]];
  EXPECT_TRUE(v.is_constant());
  if (!v.is_constant()) return {};
  std::vector<double> out;
  for (int64_t k = 0; k < v.constant->num_elements(); ++k) out.push_back(v.constant->GetDouble(k));
  return out;
}

TEST(OpsTest, ActivationsRunLikeTheInterpreter) {
  testing::OnnxBuilder b;
  b.Input("x", {2, 3, 4, 5}).Weight("slope", {3, 1, 1});
  b.Node("PRelu", {"x", "slope"}, {"prelu"});
  b.Node("Elu", {"x"}, {"elu"}).AttrFloat("alpha", 0.5f);
  b.Node("Selu", {"x"}, {"selu"});
  b.Node("Softplus", {"x"}, {"softplus"});
  b.Node("Softsign", {"x"}, {"softsign"});
  b.Node("LogSoftmax", {"x"}, {"logsoftmax"}).AttrInt("axis", 1);
  for (const char* y : {"prelu", "elu", "selu", "softplus", "softsign", "logsoftmax"})
    b.Output(y, {2, 3, 4, 5});
  ExpectExecutorMatchesInterpreter(b);
}

TEST(OpsTest, PoolsOfOneAndThreeSpatialDimsRunLikeTheInterpreter) {
  testing::OnnxBuilder b;
  b.Input("a", {1, 2, 9}).Input("v", {1, 2, 5, 6, 7});
  b.Node("MaxPool", {"a"}, {"max1d"}).AttrInts("kernel_shape", {3}).AttrInts("dilations", {2})
      .AttrInts("pads", {1, 1}).AttrInts("strides", {2}).AttrInt("ceil_mode", 1);
  b.Node("AveragePool", {"v"}, {"avg3d"}).AttrInts("kernel_shape", {2, 3, 3})
      .AttrInts("strides", {2, 2, 2}).AttrInts("pads", {0, 1, 1, 1, 1, 1});
  b.Node("GlobalMaxPool", {"v"}, {"gmax"});
  b.Output("max1d", {1, 2, 4}).Output("avg3d", {1, 2, 3, 3, 4}).Output("gmax", {1, 2, 1, 1, 1});
  ExpectExecutorMatchesInterpreter(b);
}

TEST(OpsTest, PadSplitExpandSumMeanRunLikeTheInterpreter) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 4, 5}).Int64s("pads", {0, 0, 2, -1, 0, 0, 1, 2});
  b.WeightValues("value", {}, {1.5f}).Int64s("split", {1, 2}).Int64s("shape", {2, 3, 1, 1});
  b.Node("Pad", {"x", "pads", "value"}, {"padded"});
  b.Node("Split", {"padded", "split"}, {"s0", "s1"}).AttrInt("axis", 1);
  b.Node("Expand", {"s0", "shape"}, {"wide"});
  b.Node("Sum", {"wide", "padded", "s0"}, {"sum"});
  b.Node("Mean", {"s0", "padded", "wide"}, {"mean"});
  b.Output("padded", {1, 3, 7, 6}).Output("s1", {1, 2, 7, 6}).Output("sum", {2, 3, 7, 6});
  b.Output("mean", {2, 3, 7, 6});
  ExpectExecutorMatchesInterpreter(b);
}

TEST(OpsTest, FoldedValuesMatchTheOnnxDefinitions) {
  {  // One row of 9s on top, the first column cropped, one column of 9s at the end.
    testing::OnnxBuilder b(13);
    b.WeightValues("x", {2, 3}, {1, 2, 3, 4, 5, 6}).Int64s("pads", {1, -1, 0, 1});
    b.WeightValues("value", {}, {9});
    b.Node("Pad", {"x", "pads", "value"}, {"y"}).Output("y", {3, 3});
    EXPECT_THAT(Folded(b), ::testing::ElementsAre(9, 9, 9, 2, 3, 9, 5, 6, 9));
  }
  {  // Opset 6: pads and value are attributes.
    testing::OnnxBuilder b(6);
    b.WeightValues("x", {2}, {1, 2});
    b.Node("Pad", {"x"}, {"y"}).AttrInts("pads", {1, 2}).AttrFloat("value", -1);
    b.Output("y", {5});
    EXPECT_THAT(Folded(b), ::testing::ElementsAre(-1, 1, 2, -1, -1));
  }
  {
    testing::OnnxBuilder b;
    b.WeightValues("x", {4}, {-2, -1, 0, 3}).WeightValues("slope", {1}, {0.5f});
    b.Node("PRelu", {"x", "slope"}, {"y"}).Output("y", {4});
    EXPECT_THAT(Folded(b), ::testing::ElementsAre(-1, -0.5, 0, 3));
  }
  {  // Dilation 2: the windows are {1, 3}, {2, 4}, {3, 5}.
    testing::OnnxBuilder b;
    b.WeightValues("x", {1, 1, 5}, {1, 5, 2, 4, 3});
    b.Node("MaxPool", {"x"}, {"y"}).AttrInts("kernel_shape", {2}).AttrInts("dilations", {2});
    b.Output("y", {1, 1, 3});
    EXPECT_THAT(Folded(b), ::testing::ElementsAre(2, 5, 3));
  }
  {  // Equal parts by default; the second output.
    testing::OnnxBuilder b(11);
    b.WeightValues("x", {6}, {1, 2, 3, 4, 5, 6});
    b.Node("Split", {"x"}, {"a", "b", "c"}).Output("b", {2});
    EXPECT_THAT(Folded(b), ::testing::ElementsAre(3, 4));
  }
  {
    testing::OnnxBuilder b;
    b.WeightValues("x", {2, 1}, {1, 2}).Int64s("shape", {2, 3});
    b.Node("Expand", {"x", "shape"}, {"y"}).Output("y", {2, 3});
    EXPECT_THAT(Folded(b), ::testing::ElementsAre(1, 1, 1, 2, 2, 2));
  }
  {
    testing::OnnxBuilder b;
    b.WeightValues("a", {2}, {1, 2}).WeightValues("b", {2}, {3, 5}).WeightValues("c", {1}, {6});
    b.Node("Mean", {"a", "b", "c"}, {"y"}).Output("y", {2});
    EXPECT_THAT(Folded(b), ::testing::Pointwise(::testing::DoubleNear(1e-6),
                                                std::vector<double>{10.0 / 3, 13.0 / 3}));
  }
}

TEST(OpsTest, UnsupportedVariantsAreRefusedNamingTheNode) {
  testing::OnnxBuilder reflect;
  reflect.Input("x", {1, 4}).Int64s("pads", {0, 1, 0, 1});
  reflect.Node("Pad", {"x", "pads"}, {"y"}).AttrString("mode", "reflect").Output("y", {1, 6});
  auto g = ImportOnnxModel(reflect.model());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(g.status().message(), HasSubstr("node 'y' (Pad): mode 'reflect'"));

  testing::OnnxBuilder uneven;
  uneven.Input("x", {5});
  uneven.Node("Split", {"x"}, {"a", "b"}).Output("a", {2}).Output("b", {3});
  g = ImportOnnxModel(uneven.model());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("node 'a' (Split)"));

  testing::OnnxBuilder dilated_avg;
  dilated_avg.Input("x", {1, 1, 6});
  dilated_avg.Node("AveragePool", {"x"}, {"y"}).AttrInts("kernel_shape", {2})
      .AttrInts("dilations", {2}).Output("y", {1, 1, 4});
  g = ImportOnnxModel(dilated_avg.model());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tuneforge::graph
