// ComputeDag on real ops: op order, the access analysis the sketch rules
// read, FLOPs, and the printed forms.
#include "common/te/compute_dag.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const OpAnalysis& AnalysisOf(const ComputeDag& dag, const std::string& name) {
  Tensor t = optest::FindOp(dag, name);
  EXPECT_NE(t, nullptr) << name;
  return dag.analysis(dag.IndexOf(t.get()));
}

TEST(ComputeDagOpsTest, OrderPutsProducersFirstAndInputsByFirstUse) {
  Tensor a = Placeholder("A", {4});
  Tensor b = Placeholder("B", {4});
  absl::StatusOr<Tensor> x = Compute("X", {4}, [&](const std::vector<Var>& v) {
    return Read(b, {Expr(v[0])}) * 2.0f;
  });
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> y = Compute("Y", {4}, [&](const std::vector<Var>& v) {
    return Read(a, {Expr(v[0])}) + Read(*x, {Expr(v[0])}) + Read(b, {Expr(v[0])});
  });
  ASSERT_TRUE(y.ok());
  ComputeDag dag = optest::MustDag({*y});
  // A is read first by Y, but Y's reads are visited in order: A, then X (and B through X).
  EXPECT_THAT(optest::OpNames(dag), ElementsAre("A", "B", "X", "Y"));
  EXPECT_THAT(dag.InputOps(), ElementsAre(0, 1));
  EXPECT_THAT(dag.OutputOps(), ElementsAre(3));
  EXPECT_THAT(dag.ArgumentOps(), ElementsAre(0, 1, 3));
  EXPECT_THAT(dag.analysis(1).consumers, ElementsAre(2, 3));  // B feeds X and Y, listed once
  EXPECT_THAT(dag.analysis(3).producers, ElementsAre(0, 2, 1));
}

TEST(ComputeDagOpsTest, CreateRejectsEmptyAndDuplicateNames) {
  absl::StatusOr<ComputeDag> none = ComputeDag::Create({});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("needs at least one output"));
  Tensor a1 = Placeholder("A", {4}), a2 = Placeholder("A", {4});
  absl::StatusOr<Tensor> c = Compute("C", {4}, [&](const std::vector<Var>& v) {
    return Read(a1, {Expr(v[0])}) + Read(a2, {Expr(v[0])});
  });
  ASSERT_TRUE(c.ok());
  absl::StatusOr<ComputeDag> dup = ComputeDag::Create({*c});
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.status().message(), HasSubstr("two different tensors are named 'A'"));
}

TEST(ComputeDagOpsTest, MatmulNeedsMultiLevelTiling) {
  Workload w = optest::MustParse("matmul:M=64,N=64,K=64");
  const OpAnalysis& c = AnalysisOf(*w.dag, "C");
  EXPECT_TRUE(c.needs_multi_level_tiling);
  EXPECT_TRUE(c.has_reduction);
  EXPECT_TRUE(c.is_output);
  EXPECT_FALSE(c.is_elementwise);
  EXPECT_FALSE(c.is_strictly_inlinable);
  EXPECT_TRUE(AnalysisOf(*w.dag, "A").is_placeholder);
  EXPECT_FALSE(AnalysisOf(*w.dag, "A").is_output);
}

TEST(ComputeDagOpsTest, ConvAndPadAnalysis) {
  Workload w = optest::MustParse("conv2d+bias+relu:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1");
  EXPECT_TRUE(AnalysisOf(*w.dag, "conv2d").needs_multi_level_tiling);
  const OpAnalysis& pad = AnalysisOf(*w.dag, "pad");
  EXPECT_TRUE(pad.is_strictly_inlinable);
  EXPECT_FALSE(pad.is_elementwise);  // it shifts its input
  EXPECT_FALSE(pad.has_expensive_op);
  EXPECT_FALSE(pad.needs_multi_level_tiling);
  for (const char* epilogue : {"bias_add", "relu"}) {
    const OpAnalysis& a = AnalysisOf(*w.dag, epilogue);
    EXPECT_TRUE(a.is_strictly_inlinable) << epilogue;
    EXPECT_FALSE(a.needs_multi_level_tiling) << epilogue;
  }
  EXPECT_TRUE(AnalysisOf(*w.dag, "relu").is_elementwise);
  EXPECT_THAT(w.dag->OutputOps(), ElementsAre(w.dag->num_ops() - 1));
}

TEST(ComputeDagOpsTest, ElementwiseOpsAreStrictlyInlinable) {
  for (const char* spec : {"relu:N=1,C=64,H=56,W=56", "add:M=128,N=128"}) {
    Workload w = optest::MustParse(spec);
    const OpAnalysis& a = w.dag->analysis(w.dag->num_ops() - 1);
    EXPECT_TRUE(a.is_elementwise) << spec;
    EXPECT_TRUE(a.is_strictly_inlinable) << spec;
    EXPECT_FALSE(a.has_reduction) << spec;
    EXPECT_FALSE(a.needs_multi_level_tiling) << spec;
  }
}

TEST(ComputeDagOpsTest, SoftmaxStages) {
  Workload w = optest::MustParse("softmax:M=128,N=1000");
  const OpAnalysis& exp = AnalysisOf(*w.dag, "exp");
  EXPECT_TRUE(exp.has_expensive_op);
  EXPECT_FALSE(exp.is_strictly_inlinable);  // exp is too dear to recompute per consumer
  const OpAnalysis& row_max = AnalysisOf(*w.dag, "row_max");
  EXPECT_TRUE(row_max.has_reduction);
  EXPECT_FALSE(row_max.needs_multi_level_tiling);  // one read per output row: no reuse
  EXPECT_FALSE(AnalysisOf(*w.dag, "exp_sum").needs_multi_level_tiling);
  EXPECT_TRUE(AnalysisOf(*w.dag, "softmax").is_output);
  EXPECT_FALSE(AnalysisOf(*w.dag, "exp").is_output);
  EXPECT_THAT(w.dag->OutputOps(), ElementsAre(w.dag->num_ops() - 1));
}

TEST(ComputeDagOpsTest, NormReductionToShapeOneNeedsNoTiling) {
  Workload w = optest::MustParse("norm:M=1024,N=1024");
  EXPECT_FALSE(AnalysisOf(*w.dag, "sq_sum").needs_multi_level_tiling);
  EXPECT_TRUE(AnalysisOf(*w.dag, "norm").has_expensive_op);
}

TEST(ComputeDagOpsTest, FlopsCountValueArithmeticOnly) {
  // Pad (index arithmetic and bounds tests only) adds no FLOPs; relu and the
  // bias add one per output element each.
  Workload w = optest::MustParse("conv2d+bias+relu:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1");
  double conv = 2.0 * 32 * 14 * 14 * 16 * 3 * 3;
  EXPECT_DOUBLE_EQ(w.dag->flops(), conv + 2.0 * 32 * 14 * 14);
  // softmax: max (1) + exp(x - max) (2) + sum (1) + divide (1) per element.
  EXPECT_DOUBLE_EQ(optest::MustParse("softmax:M=4,N=10").dag->flops(), 5.0 * 40);
}

TEST(ComputeDagOpsTest, ToStringListsEveryOp) {
  Workload w = optest::MustParse("matmul+relu:M=2,N=4,K=3");
  EXPECT_EQ(w.dag->ToString(),
            "A: float32[2, 3] = placeholder\n"
            "B: float32[3, 4] = constant placeholder\n"
            "C: float32[2, 4] = compute(i, j) sum((A[i, k] * B[k, j]), axis=[k:3])\n"
            "relu: float32[2, 4] = compute(i, j) max(C[i, j], 0.0)\n");
}

TEST(ComputeDagOpsTest, CanonicalTextIgnoresNamesButNotStructure) {
  Workload a = optest::MustParse("conv2d:N=1,C=4,H=6,W=6,K=4,R=3,S=3,pad=1");
  Workload b = optest::MustParse("conv2d:N=1,C=4,H=6,W=6,K=4,R=3,S=3,pad=1");
  EXPECT_EQ(a.dag->canonical_text(), b.dag->canonical_text());
  EXPECT_THAT(a.dag->canonical_text(), ::testing::Not(HasSubstr("kernel")));
  EXPECT_THAT(a.dag->canonical_text(),
              HasSubstr("select(((((v2 >= 1) && (v2 < 7)) && (v3 >= 1)) && (v3 < 7)), "
                        "t0[v0, v1, (v2 - 1), (v3 - 1)], 0.0)"));
  EXPECT_THAT(optest::MustParse("relu:M=4").dag->canonical_text(), ::testing::Not(IsEmpty()));
}

}  // namespace
}  // namespace tuneforge::te
