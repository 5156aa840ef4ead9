// tuneforge compile's library with a schedule that packs its weights (layout
// rewrite): the packed weights are stored in the library, one copy per group,
// and a C program gets the executor's outputs.
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "common/te/ndarray.h"
#include "common/te/workload.h"
#include "graph/executor/compiled_model.h"
#include "graph/export/model_library.h"
#include "graph/model/model.h"
#include "graph/onnx/import.h"
#include "tests/graph/onnx_builder.h"

namespace tuneforge::graph {
namespace {

namespace fs = std::filesystem;

TEST(ExportTest, PackedWeightsAreStoredPerGroupAndTheProgramMatchesTheExecutor) {
  const char* bin = std::getenv("TF_BIN_DIR");
  if (!bin) GTEST_SKIP() << "TF_BIN_DIR is not set (run through ctest)";
  std::string runtime = (fs::path(bin).parent_path() / "lib" / "libtf_runtime.a").string();
  ASSERT_TRUE(fs::exists(runtime)) << runtime;
  char tmpl[] = "/tmp/tf-export-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;

  // Two MatMuls with their own weights (one task, two groups), concatenated.
  testing::OnnxBuilder b;
  b.Input("x", {4, 64});
  b.Weight("w1", {64, 256}, 0.3f).Weight("w2", {64, 256}, 0.7f);
  b.Node("MatMul", {"x", "w1"}, {"y1"});
  b.Node("MatMul", {"x", "w2"}, {"y2"});
  b.Node("Concat", {"y1", "y2"}, {"y"}).AttrInt("axis", 1);
  b.Output("y", {4, 512});
  auto graph = ImportOnnxModel(b.model());
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto model = BuildModel(*std::move(graph), "two_matmuls");
  ASSERT_TRUE(model.ok()) << model.status();
  const std::string matmul = te::ParseWorkload("matmul:M=4,N=256,K=64")->dag->workload_key();
  // Tiles (j.0, k.0, i, k.1, j.1) with B's 8x16 panel copied inside k.0.
  ScheduleLookup lookup = [&](const std::string& key) -> std::optional<TunedSchedule> {
    if (key != matmul) return std::nullopt;
    return TunedSchedule{{schedule::SplitStep{2, 1, {16}, true}, schedule::SplitStep{2, 3, {8}, true},
                                       schedule::ReorderStep{2, {1, 3, 0, 4, 2}},
                                       schedule::CacheReadStep{1, "local", {2}}, schedule::ComputeAtStep{2, 3, 1}}};
  };
  LibraryOptions options;
  options.out_dir = dir + "/lib";
  options.name = "model";
  options.runtime_archive = runtime;
  auto report = WriteModelLibrary(*model, lookup, options);
  ASSERT_TRUE(report.ok()) << report.status();
  int tuned = 0;
  for (const KernelInfo& k : report->kernels) tuned += k.tuned;
  EXPECT_EQ(tuned, 1);
  // Two weights of 64 KiB each, and each packed again for its own group.
  EXPECT_GE(report->weight_bytes, 4 * 64 * 256 * 4);

  std::string main_c = std::string(TF_TEST_DATA_DIR) + "/compiled_model/main.c";
  ASSERT_EQ(std::system(("cc -O1 -o " + dir + "/prog " + main_c + " -I" + dir + "/lib -L" + dir +
                         "/lib -lmodel -Wl,-rpath," + dir + "/lib")
                            .c_str()),
            0);
  auto x = te::NDArray::Empty(te::DType::Float32(), {4, 64});
  x->FillRandom(5);
  std::ofstream(dir + "/x.bin", std::ios::binary).write(static_cast<const char*>(x->data()), x->nbytes());
  ASSERT_EQ(std::system((dir + "/prog " + dir + "/x.bin " + dir + "/y.bin").c_str()), 0);
  auto reference = CompiledModel::Compile(*model, nullptr);
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::vector<te::NDArray> inputs;
  inputs.push_back(*std::move(x));
  auto want = (*reference)->Run(inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = te::NDArray::Empty(te::DType::Float32(), {4, 512});
  std::ifstream(dir + "/y.bin", std::ios::binary).read(static_cast<char*>(got->data()), got->nbytes());
  auto cmp = te::Compare(*got, want->front());
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  EXPECT_TRUE(cmp->ok) << cmp->Summary();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuneforge::graph
