// Generated models end to end through the graph layer: import, passes,
// fusion, tasks, the executor (ExpectExecutorMatchesInterpreter, in
// model_testing.h), and what the passes and the partition make of them.
#include <filesystem>

#include "absl/container/flat_hash_map.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/interpreter.h"
#include "common/te/ndarray.h"
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

Model MustBuild(const testing::OnnxBuilder& b, const std::string& name) {
  auto graph = ImportOnnxModel(b.model());
  EXPECT_TRUE(graph.ok()) << graph.status();
  auto model = BuildModel(*std::move(graph), name);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

TEST(ModelTest, ResidualBlocksRunLikeTheInterpreter) { ExpectExecutorMatchesInterpreter(testing::ResidualBlocks()); }
TEST(ModelTest, MlpRunsLikeTheInterpreter) { ExpectExecutorMatchesInterpreter(testing::Mlp()); }
TEST(ModelTest, AttentionBlockRunsLikeTheInterpreter) { ExpectExecutorMatchesInterpreter(testing::AttentionBlock()); }

TEST(ModelTest, BatchNormsFoldIntoConvsAndConvBiasReluIsOneTaskWithTheSpecsKey) {
  Model m = MustBuild(testing::ResidualBlocks(8, 10, 10), "resnet");
  EXPECT_EQ(m.passes.batch_norms_folded, 4);
  for (const Node& n : m.graph.nodes) EXPECT_FALSE(std::holds_alternative<BatchNorm>(n.op)) << n.name;
  // conv+bias+relu (first conv of each block) and conv+bias+add+relu
  // (second): two tasks, each run twice.
  ASSERT_EQ(m.tasks.size(), 2u);
  auto spec_key = [](const std::string& spec) { return te::ParseWorkload(spec)->dag->workload_key(); };
  EXPECT_EQ(m.tasks[0].spec, te::ParseWorkload("conv2d+bias+relu:N=1,C=8,H=10,W=10,K=8,R=3,S=3,pad=1")->spec);
  EXPECT_EQ(m.tasks[0].workload_key, spec_key("conv2d+bias+relu:N=1,C=8,H=10,W=10,K=8,R=3,S=3,pad=1"));
  EXPECT_EQ(m.tasks[0].weight, 2);
  EXPECT_EQ(m.tasks[1].workload_key, spec_key("conv2d+bias+add+relu:N=1,C=8,H=10,W=10,K=8,R=3,S=3,pad=1"));
  EXPECT_EQ(m.tasks[1].weight, 2);
  EXPECT_EQ(m.groups.size(), 4u);
}

// The 3x3 convs of ResidualBlocks have a Winograd form. Built with it, the
// tasks are conv2d_winograd's (the keys of single-op jobs); either way the
// other form is each group's alternative, and the executor runs the form
// whose record is faster, with the same outputs.
TEST(ModelTest, A3x3ConvRunsInTheFormWhoseRecordIsFaster) {
  const testing::OnnxBuilder b = testing::ResidualBlocks(8, 10, 10);
  Model direct = MustBuild(b, "resnet");
  auto imported = ImportOnnxModel(b.model());
  ASSERT_TRUE(imported.ok()) << imported.status();
  ModelOptions options;
  options.conv = ConvAlgorithm::kWinograd;
  auto winograd = BuildModel(*std::move(imported), "resnet", options);
  ASSERT_TRUE(winograd.ok()) << winograd.status();
  ASSERT_EQ(winograd->tasks.size(), 2u);
  EXPECT_EQ(winograd->tasks[0].spec,
            te::ParseWorkload("conv2d_winograd+bias+relu:N=1,C=8,H=10,W=10,K=8,pad=1,tile=4")->spec);
  EXPECT_EQ(winograd->tasks[1].spec,
            te::ParseWorkload("conv2d_winograd+bias+add+relu:N=1,C=8,H=10,W=10,K=8,pad=1,tile=4")->spec);
  ASSERT_EQ(direct.tasks.size(), 2u);
  for (size_t g = 0; g < direct.groups.size(); ++g) {
    ASSERT_TRUE(direct.alternatives[g].has_value()) << g;
    EXPECT_EQ(direct.alternatives[g]->dag->workload_key(), winograd->kernels[g].dag->workload_key());
    EXPECT_EQ(direct.alternatives[g]->args, direct.kernels[g].args);
  }
  // The first task's Winograd record is the faster, the second's direct one.
  absl::flat_hash_map<std::string, double> seconds = {{winograd->tasks[0].workload_key, 1e-6},
                                                     {direct.tasks[0].workload_key, 2e-6},
                                                     {direct.tasks[1].workload_key, 1e-6},
                                                     {winograd->tasks[1].workload_key, 2e-6}};
  ScheduleLookup lookup = [&](const std::string& k) -> std::optional<TunedSchedule> {
    auto it = seconds.find(k);
    if (it == seconds.end()) return std::nullopt;
    return TunedSchedule{{}, it->second};  // the unscheduled program, as a stored schedule
  };
  auto chosen = CompiledModel::Compile(direct, lookup);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  ASSERT_EQ((*chosen)->kernels().size(), 2u);
  EXPECT_EQ((*chosen)->kernels()[0].name, "conv2d_winograd+bias+relu");
  EXPECT_EQ((*chosen)->kernels()[0].workload_key, winograd->tasks[0].workload_key);
  EXPECT_EQ((*chosen)->kernels()[1].name, "conv2d+bias+add+relu");
  for (const KernelInfo& k : (*chosen)->kernels()) EXPECT_TRUE(k.tuned) << k.name;
  // Only a record of the Winograd form: it runs, whatever form was tuned.
  seconds = {{winograd->tasks[1].workload_key, 1e-3}};
  auto only_winograd = CompiledModel::Compile(direct, lookup);
  ASSERT_TRUE(only_winograd.ok()) << only_winograd.status();
  EXPECT_EQ((*only_winograd)->kernels()[1].name, "conv2d_winograd+bias+add+relu");

  auto reference = CompiledModel::Compile(direct, nullptr);
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::vector<te::NDArray> inputs;
  for (ValueId id : direct.graph.inputs) {
    auto a = te::NDArray::Empty(direct.graph.values[id].dtype, direct.graph.values[id].shape);
    ASSERT_TRUE(a.ok()) << a.status();
    a->FillRandom(11 + id);
    inputs.push_back(*std::move(a));
  }
  auto want = (*reference)->Run(inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  for (auto* m : {&*chosen, &*only_winograd}) {
    auto got = (*m)->Run(inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), want->size());
    for (size_t o = 0; o < want->size(); ++o) EXPECT_EQ(Mismatch((*got)[o], (*want)[o]), "") << "output " << o;
  }
}

// A DCGAN layer: a stride-2 transposed convolution, batch norm, relu.
testing::OnnxBuilder TransposedConvBnRelu() {
  testing::OnnxBuilder b;
  b.Input("z", {1, 8, 4, 4}).Weight("w", {8, 6, 4, 4}, 0.3f);
  b.Weight("g", {6}).Weight("beta", {6}).Weight("mean", {6});
  b.WeightValues("var", {6}, {0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f});
  b.Node("ConvTranspose", {"z", "w"}, {"up"}).AttrInts("kernel_shape", {4, 4}).AttrInts("strides", {2, 2})
      .AttrInts("pads", {1, 1, 1, 1});
  b.Node("BatchNormalization", {"up", "g", "beta", "mean", "var"}, {"bn"});
  b.Node("Relu", {"bn"}, {"y"});
  b.Output("y", {1, 6, 8, 8});
  return b;
}

TEST(ModelTest, TransposedConvBnReluRunsLikeTheInterpreter) { ExpectExecutorMatchesInterpreter(TransposedConvBnRelu()); }

TEST(ModelTest, BatchNormFoldsIntoATransposedConvWhichIsTheLibraryOp) {
  Model m = MustBuild(TransposedConvBnRelu(), "dcgan");
  EXPECT_EQ(m.passes.batch_norms_folded, 1);
  ASSERT_EQ(m.tasks.size(), 1u);
  EXPECT_EQ(m.tasks[0].spec,
            te::ParseWorkload("conv2d_transpose+bias+relu:N=1,C=8,H=4,W=4,K=6,R=4,S=4,stride=2,pad=1")->spec);
}

TEST(ModelTest, GemmWithTransposedWeightsIsDenseWithBiasAndRelu) {
  Model m = MustBuild(testing::Mlp(4, 32, 64, 10), "mlp");
  std::vector<std::string> specs;
  for (const ModelTask& t : m.tasks) specs.push_back(t.spec.empty() ? t.name : t.spec);
  EXPECT_THAT(specs, ::testing::Contains(te::ParseWorkload("dense+bias+relu:M=4,N=64,K=32")->spec));
  EXPECT_THAT(specs, ::testing::Contains(te::ParseWorkload("dense+bias+relu:M=4,N=64,K=64")->spec));
  EXPECT_THAT(specs, ::testing::Contains(te::ParseWorkload("dense+bias:M=4,N=10,K=64")->spec));
}

TEST(ModelTest, TasksWithoutALibrarySpecTravelAsDefinitionsWithTheSameKey) {
  Model m = MustBuild(testing::AttentionBlock(), "attn");
  int definitions = 0;
  for (const ModelTask& t : m.tasks) {
    if (!t.spec.empty()) continue;
    ++definitions;
    auto parsed = te::ParseDefinition(t.definition, "task");
    ASSERT_TRUE(parsed.ok()) << t.name << ": " << parsed.status();
    EXPECT_EQ(parsed->dag->workload_key(), t.workload_key) << t.name;
  }
  EXPECT_GT(definitions, 0);
}

TEST(ModelTest, GeluWrittenOutBecomesOneEpilogueOfTheMatmulBeforeIt) {
  Model m = MustBuild(testing::AttentionBlock(8, 16, 2), "attn");
  EXPECT_EQ(m.passes.gelus_fused, 1);
  std::vector<std::string> specs;
  for (const ModelTask& t : m.tasks) specs.push_back(t.spec);
  EXPECT_THAT(specs, ::testing::Contains(te::ParseWorkload("matmul+bias+gelu:M=8,N=32,K=16")->spec));
  for (const Node& n : m.graph.nodes) {
    const auto* u = std::get_if<Unary>(&n.op);
    EXPECT_FALSE(u && u->kind == UnaryKind::kErf) << "the erf of the pattern is left: " << n.name;
  }
}

TEST(ModelTest, LayerNormWrittenOutBecomesOneLayerNormTask) {
  // The attention block's second layer norm is PyTorch's opset-13 export:
  // ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add.
  Model m = MustBuild(testing::AttentionBlock(8, 16, 2), "attn");
  EXPECT_EQ(m.passes.layer_norms_fused, 1);
  int layer_norms = 0;
  for (const Node& n : m.graph.nodes) {
    layer_norms += std::holds_alternative<LayerNorm>(n.op);
    EXPECT_FALSE(std::holds_alternative<Reduce>(n.op)) << "a mean of the pattern is left: " << n.name;
    const auto* b = std::get_if<Binary>(&n.op);
    EXPECT_FALSE(b && b->kind == BinaryKind::kPow) << "the pattern's Pow is left: " << n.name;
  }
  EXPECT_EQ(layer_norms, 2);  // the file's LayerNormalization and the pattern
  // Its gamma and beta are the layer norm's scale and bias; the model's output
  // is the layer norm's (the executor test above checks the numbers).
  const Node& last = m.graph.nodes.back();
  ASSERT_TRUE(std::holds_alternative<LayerNorm>(last.op)) << last.name;
  EXPECT_EQ(last.inputs.size(), 3u);
  EXPECT_EQ(m.graph.values[last.inputs[1]].name, "ln2.gamma");
  EXPECT_EQ(m.graph.values[last.inputs[2]].name, "ln2.beta");
}

TEST(ModelTest, TheMemoryPlanReusesBytesAndNeverOverlapsLiveValues) {
  Model m = MustBuild(testing::ResidualBlocks(8, 10, 10), "resnet");
  MemoryPlan plan = PlanMemory(m.graph, m.groups);
  EXPECT_LT(plan.arena_bytes, plan.naive_bytes);
  // Check overlap: two group outputs alive at once never share bytes.
  for (size_t a = 0; a < m.groups.size(); ++a)
    for (size_t b = a + 1; b < m.groups.size(); ++b) {
      ValueId va = m.groups[a].output, vb = m.groups[b].output;
      bool b_reads_a = false;
      for (int n : m.groups[b].nodes)
        for (ValueId in : m.graph.nodes[n].inputs) b_reads_a |= in == va;
      if (!b_reads_a) continue;  // a may be dead by then
      int64_t sa = m.graph.values[va].num_elements() * 4, sb = m.graph.values[vb].num_elements() * 4;
      int64_t oa = plan.storage[va].offset, ob = plan.storage[vb].offset;
      EXPECT_TRUE(oa + sa <= ob || ob + sb <= oa) << "groups " << a << " and " << b << " overlap";
    }
}

TEST(ModelTest, ATunedScheduleIsUsedAndTheUntunedCountIsReported) {
  Model m = MustBuild(testing::Mlp(4, 32, 64, 10), "mlp");
  // A schedule for the first task: split its first axis (a real step).
  const std::string key = m.tasks[0].workload_key;
  int asked = 0;
  ScheduleLookup lookup = [&](const std::string& k) -> std::optional<TunedSchedule> {
    ++asked;
    if (k != key) return std::nullopt;
    return TunedSchedule{};  // the unscheduled program, as a stored schedule
  };
  auto compiled = CompiledModel::Compile(m, lookup);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(asked, static_cast<int>(m.tasks.size()));
  int tuned = 0;
  for (const KernelInfo& k : (*compiled)->kernels()) tuned += k.tuned;
  EXPECT_EQ(tuned, 1);
}

// Two MatMuls of the same shape with their own constant weights: one task, two
// groups. A schedule that packs the weight's panels inside the tile loops
// packs each group's own weights once, at load, and both outputs stay right.
TEST(ModelTest, EachGroupRunsWithItsOwnWeightsPackedOnce) {
  testing::OnnxBuilder b;
  b.Input("x", {4, 64});
  b.Weight("w1", {64, 256}, 0.3f).Weight("w2", {64, 256}, 0.7f);
  b.Node("MatMul", {"x", "w1"}, {"y1"});
  b.Node("MatMul", {"x", "w2"}, {"y2"});
  b.Output("y1", {4, 256}).Output("y2", {4, 256});
  Model m = MustBuild(b, "two_matmuls");
  ASSERT_EQ(m.tasks.size(), 1u);
  ASSERT_EQ(m.tasks[0].groups.size(), 2u);
  EXPECT_EQ(m.tasks[0].workload_key, te::ParseWorkload("matmul:M=4,N=256,K=64")->dag->workload_key());
  // A (0), B (1), C (2): tiles (j.0, k.0, i, k.1, j.1), B's 8x16 panel copied inside k.0.
  std::vector<schedule::Step> packed_panels = {
      schedule::SplitStep{2, 1, {16}, true}, schedule::SplitStep{2, 3, {8}, true},
      schedule::ReorderStep{2, {1, 3, 0, 4, 2}}, schedule::CacheReadStep{1, "local", {2}},
      schedule::ComputeAtStep{2, 3, 1}};
  auto tuned = CompiledModel::Compile(m, [&](const std::string&) { return TunedSchedule{packed_panels, 1e-6}; });
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  ASSERT_TRUE((*tuned)->kernels()[0].tuned) << (*tuned)->kernels()[0].fallback_reason;
  auto reference = CompiledModel::Compile(m, nullptr);
  ASSERT_TRUE(reference.ok()) << reference.status();
  auto x = te::NDArray::Empty(te::DType::Float32(), {4, 64});
  x->FillRandom(3);
  std::vector<te::NDArray> inputs;
  inputs.push_back(*std::move(x));
  auto got = (*tuned)->Run(inputs);
  auto want = (*reference)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  for (int o = 0; o < 2; ++o) {
    auto c = te::Compare((*got)[o], (*want)[o]);
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c->ok) << "output " << o << ": " << c->Summary();
  }
  // Running again reads the same packed weights (nothing is packed per call).
  auto again = (*tuned)->Run(inputs);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(te::Compare((*again)[1], (*want)[1])->ok);
}

}  // namespace
}  // namespace tuneforge::graph
