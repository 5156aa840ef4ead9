#include "tests/graph/model_testing.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "graph/executor/compiled_model.h"
#include "graph/model/model.h"
#include "graph/lower/evaluate_node.h"
#include "graph/onnx/import.h"
#include "graph/onnx/tensor_proto.h"
#include "graph/onnx/test_data.h"
#include "common/te/workload.h"
#include "gtest/gtest.h"

namespace tuneforge::graph {

namespace fs = std::filesystem;

std::string Mismatch(const te::NDArray& got, const te::NDArray& want) {
  if (got.num_elements() != want.num_elements())
    return absl::StrCat(got.num_elements(), " elements, expected ", want.num_elements());
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.GetDouble(i), w = want.GetDouble(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::abs(g - w) <= 1e-5 + 1e-3 * std::abs(w)))
      return absl::StrCat("element ", i, " is ", g, ", expected ", w);
  }
  return "";
}

namespace {

// Backend tests often feed what models keep static (a Reshape's shape, a
// Slice's bounds, Clip's limits) as inputs with test data. When the plain
// import refuses the case for want of a constant, every input but the first
// is frozen to its value in test_data_set_0 and the case is imported again.
absl::StatusOr<Model> LoadCase(const std::string& dir, ImportOptions* options) {
  std::string path = (fs::path(dir) / "model.onnx").string();
  auto model = LoadModel(path);
  if (model.ok() || model.status().code() != absl::StatusCode::kUnimplemented ||
      model.status().message().find("must be a constant") == std::string::npos)
    return model;
  onnx::ModelProto proto;
  std::ifstream in(path, std::ios::binary);
  if (!proto.ParseFromIstream(&in)) return model;
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto& v : proto.graph().input()) {
    bool initializer = false;
    for (const onnx::TensorProto& t : proto.graph().initializer()) initializer |= t.name() == v.name();
    if (!initializer) names.push_back(v.name());
  }
  for (size_t i = 1; i < names.size(); ++i) {
    auto value = onnx_import::ReadTensorFile(
        (fs::path(dir) / "test_data_set_0" / absl::StrCat("input_", i, ".pb")).string());
    if (!value.ok()) return value.status();
    options->frozen_inputs[names[i]] = std::make_shared<const te::NDArray>(*std::move(value));
  }
  return LoadModel(path, *options);
}

}  // namespace

CaseOutcome RunBackendCase(const std::string& dir) {
  ImportOptions frozen;
  auto model = LoadCase(dir, &frozen);
  if (!model.ok())
    return {model.status().code() == absl::StatusCode::kUnimplemented ? CaseOutcome::kUnsupported
                                                                       : CaseOutcome::kFailed,
            std::string(model.status().message())};
  auto compiled = CompiledModel::Compile(*model, nullptr);
  if (!compiled.ok()) return {CaseOutcome::kFailed, std::string(compiled.status().message())};
  // Frozen inputs are the last ones of the file's list (all but the first):
  // the model's remaining inputs are the first ones.
  const Graph& g = (*compiled)->graph();
  auto sets = ReadTestDataSets(dir, g.inputs.size(), g.outputs.size());
  if (!sets.ok()) return {CaseOutcome::kFailed, std::string(sets.status().message())};
  if (sets->empty()) return {CaseOutcome::kFailed, "no test_data_set_0"};
  for (TestDataSet& set : *sets) {
    auto outputs = (*compiled)->Run(set.inputs);
    if (!outputs.ok()) return {CaseOutcome::kFailed, std::string(outputs.status().message())};
    for (size_t o = 0; o < outputs->size(); ++o) {
      std::string m = Mismatch((*outputs)[o], set.outputs[o]);
      if (!m.empty()) return {CaseOutcome::kFailed, absl::StrCat("output ", o, ": ", m)};
    }
  }
  return {CaseOutcome::kPassed, ""};
}

namespace {

std::vector<te::NDArray> NodeByNode(const Graph& imported, const std::vector<te::NDArray>& inputs) {
  Graph g = imported;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    g.values[g.inputs[i]].constant = std::make_shared<const te::NDArray>(*inputs[i].Copy());
  for (const Node& n : g.nodes) {
    auto v = EvaluateNode(g, n);
    EXPECT_TRUE(v.ok()) << n.name << ": " << v.status();
    if (!v.ok()) return {};
    g.values[n.output].constant = std::make_shared<const te::NDArray>(*std::move(v));
  }
  std::vector<te::NDArray> out;
  for (ValueId id : g.outputs) out.push_back(*g.values[id].constant->Copy());
  return out;
}

}  // namespace

void ExpectExecutorMatchesInterpreter(const testing::OnnxBuilder& b) {
  auto imported = ImportOnnxModel(b.model());
  ASSERT_TRUE(imported.ok()) << imported.status();
  auto model = BuildModel(*imported, "m");
  ASSERT_TRUE(model.ok()) << model.status();
  for (const ModelTask& t : model->tasks) {
    if (!t.spec.empty()) continue;
    auto parsed = te::ParseDefinition(t.definition, "task");
    ASSERT_TRUE(parsed.ok()) << t.name << ": " << parsed.status();
    EXPECT_EQ(parsed->dag->workload_key(), t.workload_key) << t.name;
  }
  auto compiled = CompiledModel::Compile(*model, nullptr);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<te::NDArray> inputs;
  for (ValueId id : imported->inputs) {
    auto a = te::NDArray::Empty(imported->values[id].dtype, imported->values[id].shape);
    a->FillRandom(7 + id);
    inputs.push_back(*std::move(a));
  }
  std::vector<te::NDArray> want = NodeByNode(*imported, inputs);
  // Twice: the arena must hold no state that changes an answer.
  for (int run = 0; run < 2; ++run) {
    auto got = (*compiled)->Run(inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) EXPECT_EQ(Mismatch((*got)[o], want[o]), "") << "output " << o;
  }
}

}  // namespace tuneforge::graph
