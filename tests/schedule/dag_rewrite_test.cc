#include "common/schedule/steps/dag_rewrite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::HasSubstr;
using testing::OpLine;

TEST(DagRewriteTest, KeepsTheGivenOrderAndRebuildsDownstreamOps) {
  te::ComputeDagPtr dag = testing::ElementwiseChain(4, 4);  // A B C D
  absl::StatusOr<te::Tensor> copy = MakeCopyOp("A.local", dag->op(0), "cache_read");
  ASSERT_TRUE(copy.ok());
  DagRewrite rewrite;
  rewrite.ops = dag->ops();
  rewrite.ops.insert(rewrite.ops.begin() + 1, *copy);
  rewrite.redirects.emplace_back(2, dag->op(0).get(), *copy);  // B reads the copy
  absl::StatusOr<te::ComputeDagPtr> rebuilt = RebuildDag(rewrite);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  ASSERT_EQ((*rebuilt)->num_ops(), 5);
  EXPECT_EQ((*rebuilt)->op(1)->name, "A.local");
  EXPECT_EQ(OpLine(**rebuilt, "B"), "B: float32[4, 4] = compute(i, j) (A.local[i, j] + 1.0)");
  // C and D are new tensors (they read rebuilt ops) with the same axis variables.
  EXPECT_NE((*rebuilt)->op(3), dag->op(2));
  EXPECT_EQ((*rebuilt)->op(3)->axes[0].var, dag->op(2)->axes[0].var);
  EXPECT_NE((*rebuilt)->op(4), dag->op(3));
  EXPECT_EQ((*rebuilt)->op(0), dag->op(0));  // upstream ops are shared
}

TEST(DagRewriteTest, OpsOutOfTopologicalOrderAreRejected) {
  te::ComputeDagPtr dag = testing::ElementwiseChain(4, 4);
  DagRewrite rewrite;
  rewrite.ops = {dag->op(0), dag->op(2), dag->op(1), dag->op(3)};
  absl::StatusOr<te::ComputeDagPtr> rebuilt = RebuildDag(rewrite);
  EXPECT_THAT(rebuilt.status().ToString(),
              HasSubstr("op 'C' reads 'B', which is not listed before it; list ops in "
                        "topological order"));
}

TEST(DagRewriteTest, UniqueOpNamesAvoidTakenNames) {
  te::ComputeDagPtr dag = testing::ElementwiseChain(4, 4);
  EXPECT_EQ(UniqueOpName(*dag, "B.local"), "B.local");
  EXPECT_EQ(UniqueOpName(*dag, "B"), "B.1");
}

}  // namespace
}  // namespace tuneforge::schedule
