// The example definitions in tests/data/defs: each builds, and those that
// restate a library op have that op's workload key and compute its values.
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

std::string DefPath(const std::string& name) {
  return std::string(TF_TEST_DATA_DIR) + "/defs/" + name;
}

Workload MustLoad(const std::string& name) {
  absl::StatusOr<Workload> w = LoadDefinitionFile(DefPath(name));
  EXPECT_TRUE(w.ok()) << w.status();
  return w.ok() ? *std::move(w) : Workload{};
}

// Same key, and the same values on the same inputs (inputs match by order:
// both DAGs list their placeholders in order of first use).
void ExpectSameWorkload(const std::string& file, const std::string& spec) {
  Workload def = MustLoad(file);
  Workload lib = optest::MustParse(spec);
  ASSERT_NE(def.dag, nullptr);
  ASSERT_NE(lib.dag, nullptr);
  EXPECT_EQ(def.dag->canonical_text(), lib.dag->canonical_text()) << file;
  EXPECT_EQ(def.dag->workload_key(), lib.dag->workload_key()) << file;
  EXPECT_DOUBLE_EQ(def.dag->flops(), lib.dag->flops()) << file;
  std::vector<NDArray> a = optest::Run(*def.dag, optest::RandomInputs(*def.dag, 5));
  std::vector<NDArray> b = optest::Run(*lib.dag, optest::RandomInputs(*lib.dag, 5));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    absl::StatusOr<CompareResult> cmp = Compare(a[i], b[i], Tolerance{0, 0, false});
    ASSERT_TRUE(cmp.ok()) << cmp.status();
    EXPECT_TRUE(cmp->ok) << file << ": " << cmp->Summary();
  }
}

TEST(DefinitionExamplesTest, MatmulMatchesTheSpec) {
  ExpectSameWorkload("matmul.def", "matmul:M=128,N=64,K=32");
}

TEST(DefinitionExamplesTest, Conv2dWithPadStageMatchesTheSpec) {
  ExpectSameWorkload("conv2d.def", "conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,pad=1");
  Workload def = MustLoad("conv2d.def");
  EXPECT_EQ(def.op, "conv2d");
  Tensor padded = optest::FindOp(*def.dag, "padded");
  ASSERT_NE(padded, nullptr);
  EXPECT_TRUE(def.dag->analysis(def.dag->IndexOf(padded.get())).is_strictly_inlinable);
}

TEST(DefinitionExamplesTest, SoftmaxMatchesTheSpec) {
  ExpectSameWorkload("softmax.def", "softmax:M=4,N=10");
}

TEST(DefinitionExamplesTest, EveryExampleBuilds) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DefPath(""))) {
    if (entry.path().extension() != ".def") continue;
    ++count;
    Workload w = MustLoad(entry.path().filename().string());
    ASSERT_NE(w.dag, nullptr) << entry.path();
    EXPECT_EQ(w.op, entry.path().stem().string());
    EXPECT_EQ(w.spec, "def:" + entry.path().string());
  }
  EXPECT_GE(count, 4);
}

TEST(DefinitionExamplesTest, HugeFilesAreRefused) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / "tuneforge_huge_def_test.def";
  {
    std::ofstream out(path);
    out << std::string((1 << 20) + 10, '#');
  }
  absl::StatusOr<Workload> w = LoadDefinitionFile(path.string());
  std::filesystem::remove(path);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(std::string(w.status().message()), ::testing::HasSubstr("is larger than 1048576 bytes"));
}

TEST(DefinitionExamplesTest, SwigluComputesItsFormula) {
  Workload w = MustLoad("swiglu.def");
  ASSERT_NE(w.dag, nullptr);
  // Two matmuls, then gate * sigmoid(gate) * up: three operations per element.
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2 * (2.0 * 16 * 128 * 64) + 16 * 128 * 3);
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  const NDArray &x = in[optest::InputSlot(*w.dag, "X")], &w1 = in[optest::InputSlot(*w.dag, "W1")],
                &w3 = in[optest::InputSlot(*w.dag, "W3")];
  for (int64_t t : {0, 7, 15})
    for (int64_t f : {0, 64, 127}) {
      double g = 0, u = 0;
      for (int64_t d = 0; d < 64; ++d) {
        g += optest::At(x, {t, d}) * optest::At(w1, {d, f});
        u += optest::At(x, {t, d}) * optest::At(w3, {d, f});
      }
      EXPECT_NEAR(optest::At(out[0], {t, f}), g / (1 + std::exp(-g)) * u, 1e-4);
    }
}

}  // namespace
}  // namespace tuneforge::te
