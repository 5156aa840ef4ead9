#include "common/te/ops/matmul.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using optest::At;
using optest::InputSlot;

TEST(OpsMatmulTest, NamesShapesAndTag) {
  absl::StatusOr<ops::BuiltOp> op = ops::Matmul({.M = 8, .N = 6, .K = 4});
  ASSERT_TRUE(op.ok()) << op.status();
  ComputeDag dag = optest::MustDag({op->output});
  EXPECT_THAT(optest::OpNames(dag), ElementsAre("A", "B", "C"));
  EXPECT_THAT(dag.op(0)->shape, ElementsAre(8, 4));
  EXPECT_THAT(dag.op(1)->shape, ElementsAre(4, 6));
  EXPECT_THAT(dag.op(2)->shape, ElementsAre(8, 6));
  EXPECT_EQ(dag.op(2)->tag, "matmul");
  EXPECT_EQ(op->channel_axis, 1);
}

TEST(OpsMatmulTest, ComputesTheRowMajorProduct) {
  Workload w = optest::MustParse("matmul:M=5,N=3,K=7");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag, 3);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  const NDArray &a = in[InputSlot(*w.dag, "A")], &b = in[InputSlot(*w.dag, "B")];
  for (int64_t m = 0; m < 5; ++m)
    for (int64_t n = 0; n < 3; ++n) {
      double expected = 0;
      for (int64_t k = 0; k < 7; ++k) expected += At(a, {m, k}) * At(b, {k, n});
      EXPECT_NEAR(At(out[0], {m, n}), expected, 1e-5) << m << "," << n;
    }
}

TEST(OpsMatmulTest, FlopsAreTwoMNK) {
  EXPECT_DOUBLE_EQ(optest::MustParse("matmul:M=1024,N=512,K=256").dag->flops(),
                   2.0 * 1024 * 512 * 256);
  // Integer matmuls count their multiply-adds too.
  EXPECT_DOUBLE_EQ(optest::MustParse("matmul:M=64,N=32,K=16,dtype=int32").dag->flops(),
                   2.0 * 64 * 32 * 16);
}

TEST(OpsMatmulTest, BatchMatmulMultipliesEachPair) {
  Workload w = optest::MustParse("batch_matmul:B=3,M=4,N=2,K=5");
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2.0 * 3 * 4 * 2 * 5);
  Tensor c = optest::FindOp(*w.dag, "C");
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(c->shape, ElementsAre(3, 4, 2));
  EXPECT_EQ(c->tag, "batch_matmul");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  const NDArray &a = in[InputSlot(*w.dag, "A")], &b = in[InputSlot(*w.dag, "B")];
  for (int64_t bb = 0; bb < 3; ++bb)
    for (int64_t m = 0; m < 4; ++m)
      for (int64_t n = 0; n < 2; ++n) {
        double expected = 0;
        for (int64_t k = 0; k < 5; ++k) expected += At(a, {bb, m, k}) * At(b, {bb, k, n});
        EXPECT_NEAR(At(out[0], {bb, m, n}), expected, 1e-5);
      }
}

TEST(OpsMatmulTest, DenseReadsWeightsAsNByK) {
  Workload w = optest::MustParse("dense:M=4,N=3,K=6");
  Tensor weight = optest::FindOp(*w.dag, "weight");
  ASSERT_NE(weight, nullptr);
  EXPECT_THAT(weight->shape, ElementsAre(3, 6));
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2.0 * 4 * 3 * 6);
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  const NDArray &x = in[InputSlot(*w.dag, "data")], &wt = in[InputSlot(*w.dag, "weight")];
  for (int64_t m = 0; m < 4; ++m)
    for (int64_t n = 0; n < 3; ++n) {
      double expected = 0;
      for (int64_t k = 0; k < 6; ++k) expected += At(x, {m, k}) * At(wt, {n, k});
      EXPECT_NEAR(At(out[0], {m, n}), expected, 1e-5);
    }
}

TEST(OpsMatmulTest, Float64AndIntDtypesPropagate) {
  Workload w = optest::MustParse("matmul:M=4,N=4,K=4,dtype=float64");
  for (const Tensor& t : w.dag->ops()) EXPECT_EQ(t->dtype, DType::Float64()) << t->name;
  Workload i = optest::MustParse("dense:M=4,N=4,K=4,dtype=int8");
  for (const Tensor& t : i.dag->ops()) EXPECT_EQ(t->dtype, DType::Int8()) << t->name;
}

TEST(OpsMatmulTest, RejectsNonPositiveShapes) {
  absl::StatusOr<ops::BuiltOp> op = ops::Matmul({.M = 8, .N = 0, .K = 4});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("matmul: N=0 must be positive"));
  op = ops::BatchMatmul({.B = -1, .M = 2, .N = 2, .K = 2});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("batch_matmul: B=-1 must be positive"));
  op = ops::Dense({.M = 2, .N = 2, .K = 2, .dtype = DType::Bool()});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("dtype=bool is not supported"));
}

}  // namespace
}  // namespace tuneforge::te
