// The effective-body memo: bound inference after each step reuses it while
// the state's ops and inlining are unchanged, and inlining one more stage
// recomputes only the stages that read it; the bodies are always the ones
// computed from scratch.
#include "common/schedule/effective_body.h"

#include <gtest/gtest.h>

#include "common/te/expr_util.h"
#include "common/te/workload.h"

namespace tuneforge::schedule {
namespace {

// conv2d_winograd's stages: 0 data, 1 pad, 2 input_tile, 3 winograd_BT,
// 4 data_pack, 5 kernel, 6 winograd_G, 7 kernel_pack, 8 bgemm, 9 winograd_AT,
// 10 inverse, 11 conv2d_winograd.
State Winograd() {
  absl::StatusOr<te::Workload> w = te::ParseWorkload("conv2d_winograd:N=1,C=8,H=8,W=8,K=8,pad=1,tile=4");
  EXPECT_TRUE(w.ok()) << w.status();
  State s(w->dag);
  EXPECT_EQ(s.StageIndex("winograd_BT"), 3);
  EXPECT_EQ(s.StageIndex("bgemm"), 8);
  return s;
}

void ExpectFreshBodies(const State& s) {
  std::vector<te::Expr> fresh = EffectiveBodies(s);
  std::shared_ptr<const EffectiveStages> memo = EffectiveStagesOf(s);
  ASSERT_EQ(memo->bodies.size(), fresh.size());
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (!fresh[i]) {
      EXPECT_FALSE(memo->bodies[i]) << "stage " << i;
      continue;
    }
    EXPECT_EQ(te::ToString(memo->bodies[i]), te::ToString(fresh[i])) << "stage " << i;
  }
  EXPECT_EQ(memo->consumers, EffectiveConsumers(s, fresh));
}

TEST(EffectiveBodyTest, InliningRecomputesOnlyTheStagesThatReadTheInlinedStage) {
  State s = Winograd();
  ASSERT_TRUE(s.Apply(ComputeInlineStep{1}).ok());
  std::shared_ptr<const EffectiveStages> before = EffectiveStagesOf(s);
  ASSERT_TRUE(s.Apply(ComputeInlineStep{3}).ok());  // winograd_BT into data_pack
  std::shared_ptr<const EffectiveStages> after = EffectiveStagesOf(s);
  EXPECT_NE(after.get(), before.get());
  EXPECT_NE(te::ToString(after->bodies[4]), te::ToString(before->bodies[4]));  // data_pack reads BT
  // input_tile reads the inlined pad, not BT: its substituted body is kept.
  EXPECT_TRUE(after->bodies[2].same_as(before->bodies[2]));
  EXPECT_FALSE(after->bodies[2].same_as(s.stage(2).op->body));
  ExpectFreshBodies(s);
  ASSERT_TRUE(s.Apply(ComputeInlineStep{2}).ok());  // input_tile into data_pack
  ExpectFreshBodies(s);
}

TEST(EffectiveBodyTest, ASplitKeepsTheMemoAndCopiesShareIt) {
  State s = Winograd();
  ASSERT_TRUE(s.Apply(ComputeInlineStep{3}).ok());
  std::shared_ptr<const EffectiveStages> before = EffectiveStagesOf(s);
  State copy = s;
  ASSERT_TRUE(copy.Apply(SplitStep{8, 3, {4}, true}).ok()) << copy.ToString();  // bgemm's k
  EXPECT_EQ(EffectiveStagesOf(copy).get(), before.get());
  ExpectFreshBodies(copy);
}

// Winograd's CPU sketch splits the inverse transform before it caches
// bgemm, so no replay starts from a kept prefix: what makes two replays of
// one sketch's programs share their work is the rewrite giving one DAG.
std::vector<Step> SplitThenCacheWrite(int64_t split) {
  return {SplitStep{10, 3, {split}, true},  // inverse's last axis
          CacheWriteStep{8, "local"},       // bgemm, its producers inlined below
          ComputeInlineStep{3},             // winograd_BT
          ComputeInlineStep{1}};
}

TEST(EffectiveBodyTest, ReplaysOfOneSketchShareTheRewrittenDagAndTheInlinedBodies) {
  const te::ComputeDagPtr dag = Winograd().dag();
  absl::StatusOr<State> a = State::Replay(dag, SplitThenCacheWrite(2));
  absl::StatusOr<State> b = State::Replay(dag, SplitThenCacheWrite(4));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->dag().get(), b->dag().get());
  EXPECT_EQ(EffectiveStagesOf(*a).get(), EffectiveStagesOf(*b).get());
  ExpectFreshBodies(*b);
  // The shared DAG is the one a step-by-step build makes.
  State built(dag);
  for (const Step& step : SplitThenCacheWrite(4)) ASSERT_TRUE(built.Apply(step).ok());
  EXPECT_EQ(b->ToString(), built.ToString());
  EXPECT_EQ(b->dag()->canonical_text(), built.dag()->canonical_text());
  // Another DAG of the same workload gets its own rewrite, not this one.
  const te::ComputeDagPtr other = Winograd().dag();
  ASSERT_NE(other.get(), dag.get());
  absl::StatusOr<State> c = State::Replay(other, SplitThenCacheWrite(2));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(c->dag().get(), a->dag().get());
  EXPECT_EQ(c->dag()->canonical_text(), a->dag()->canonical_text());
  for (int i = 0; i < c->num_stages(); ++i) EXPECT_EQ(c->stage(i).op, c->dag()->op(i));
}

}  // namespace
}  // namespace tuneforge::schedule
