// A State is fully determined by (DAG, steps): replaying the steps, also
// after a trip through JSON or protobuf, gives the same state and hash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/schedule/schedule_json.h"
#include "common/schedule/schedule_proto.h"
#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

// A CPU-style multi-level tiling of matmul+relu with a cache_write, the
// consumer fused into the tile, parallel outer loop, vectorized inner loop.
std::vector<Step> TiledMatmulReluSteps() {
  return {
      CacheWriteStep{2, "local"},          // A B C.local C D
      ComputeInlineStep{3},                // C copies into D
      SplitStep{2, 0, {8}, true},          // C.local: i.0 i.1 j k
      SplitStep{2, 2, {16}, true},         // C.local: i.0 i.1 j.0 j.1 k
      SplitStep{2, 4, {4}, true},          // C.local: i.0 i.1 j.0 j.1 k.0 k.1
      ReorderStep{2, {0, 2, 4, 5, 1, 3}},  // i.0 j.0 k.0 k.1 i.1 j.1
      FollowSplitStep{4, 0, 2, 1},         // D: i.0 i.1 j
      FollowSplitStep{4, 2, 3, 1},         // D: i.0 i.1 j.0 j.1
      SplitStep{4, 0, {4}, true},          // D: i.0.0 i.0.1 i.1 j.0 j.1
      ReorderStep{4, {0, 3, 1, 2, 4}},     // i.0.0 j.0 i.0.1 i.1 j.1
      ComputeAtStep{2, 4, 2},              // C.local inside D's i.0.1
      FuseStep{4, {0, 1}},
      AnnotationStep{4, 0, IterAnnotation::kParallel},
      AnnotationStep{2, 5, IterAnnotation::kVectorize},
      PragmaStep{2, 0, 64},
  };
}

TEST(ReplayTest, ReplayReproducesTheStateAndItsHash) {
  te::ComputeDagPtr dag = testing::MatmulRelu(128, 128, 64);
  State built(dag);
  for (const Step& step : TiledMatmulReluSteps()) {
    absl::Status s = built.Apply(step);
    ASSERT_TRUE(s.ok()) << s;
  }
  State replayed = testing::ReplayOrFail(dag, built.steps());
  EXPECT_EQ(replayed.ToString(), built.ToString());
  EXPECT_EQ(replayed.Hash(), built.Hash());
  EXPECT_EQ(replayed.dag()->ToString(), built.dag()->ToString());
  EXPECT_EQ(replayed.dag()->canonical_text(), built.dag()->canonical_text());
}

TEST(ReplayTest, ReplayFromAPrefixGivesTheStateOfAFullReplay) {
  te::ComputeDagPtr dag = testing::MatmulRelu(128, 128, 64);
  const std::vector<Step> steps = TiledMatmulReluSteps();
  State full = testing::ReplayOrFail(dag, steps);
  for (size_t cut = 0; cut <= steps.size(); ++cut) {
    State prefix = testing::ReplayOrFail(dag, std::vector<Step>(steps.begin(), steps.begin() + cut));
    absl::StatusOr<State> rest =
        State::ReplayFrom(prefix, std::span<const Step>(steps).subspan(cut));
    ASSERT_TRUE(rest.ok()) << rest.status();
    EXPECT_EQ(rest->ToString(), full.ToString()) << "cut after " << cut << " steps";
    EXPECT_EQ(rest->Hash(), full.Hash());
    EXPECT_EQ(rest->steps().size(), steps.size());
  }
  // A bad step after the prefix is an error naming it, as in Replay.
  State prefix = testing::ReplayOrFail(dag, std::vector<Step>(steps.begin(), steps.begin() + 3));
  std::vector<Step> bad = {SplitStep{2, 42, {4}, true}};
  absl::StatusOr<State> failed = State::ReplayFrom(prefix, bad);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()), ::testing::HasSubstr("step 3"));
}

// Replay infers bounds once, at the end, not after each step; a list with a
// misplaced stage still fails, naming the step as a step-by-step build does.
TEST(ReplayTest, AMisplacedStageFailsTheReplayWithTheErrorApplyGives) {
  te::ComputeDagPtr dag = testing::ElementwiseChain(16, 16);  // A B C D
  const std::vector<Step> steps = {SplitStep{3, 0, {4}, true}, SplitStep{2, 0, {4}, true},
                                   ComputeAtStep{1, 3, 0}};  // B inside D, its reader C outside
  State built(dag);
  ASSERT_TRUE(built.Apply(steps[0]).ok());
  ASSERT_TRUE(built.Apply(steps[1]).ok());
  absl::Status applied = built.Apply(steps[2]);
  ASSERT_FALSE(applied.ok());
  EXPECT_THAT(std::string(applied.message()), ::testing::HasSubstr("step 2"));
  absl::StatusOr<State> replayed = State::Replay(dag, steps);
  ASSERT_FALSE(replayed.ok());
  EXPECT_EQ(replayed.status(), applied);
}

TEST(ReplayTest, TheTiledStateLooksAsIntended) {
  State state = testing::ReplayOrFail(testing::MatmulRelu(128, 128, 64), TiledMatmulReluSteps());
  EXPECT_EQ(state.ToString(),
            "stage 0 A: placeholder\n"
            "stage 1 B: placeholder\n"
            "stage 2 C.local: at D (4) loop 1 i.0.1; scope local; auto_unroll_max_step 64\n"
            "  0 i.0: 1 spatial\n"
            "  1 j.0: 1 spatial\n"
            "  2 k.0: 16 reduce\n"
            "  3 k.1: 4 reduce\n"
            "  4 i.1: 8 spatial\n"
            "  5 j.1: 16 spatial vectorize\n"
            "stage 3 C: inlined\n"
            "  0 i: 128 spatial\n"
            "  1 j: 128 spatial\n"
            "stage 4 D: root\n"
            "  0 i.0.0@j.0: 32 spatial parallel\n"
            "  1 i.0.1: 4 spatial\n"
            "  2 i.1: 8 spatial\n"
            "  3 j.1: 16 spatial\n");
}

TEST(ReplayTest, ReplayAfterJsonAndProtoGivesTheSameHash) {
  te::ComputeDagPtr dag = testing::MatmulRelu(128, 128, 64);
  State state = testing::ReplayOrFail(dag, TiledMatmulReluSteps());
  Schedule schedule{kScheduleVersion, "matmul_relu", dag->workload_key(), state.steps()};

  absl::StatusOr<Schedule> from_json = ParseScheduleJson(ScheduleToJsonText(schedule));
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  State via_json = testing::ReplayOrFail(dag, from_json->steps);
  EXPECT_EQ(via_json.Hash(), state.Hash());
  EXPECT_EQ(via_json.ToString(), state.ToString());

  absl::StatusOr<Schedule> from_proto = ScheduleFromProto(ScheduleToProto(schedule));
  ASSERT_TRUE(from_proto.ok()) << from_proto.status();
  State via_proto = testing::ReplayOrFail(dag, from_proto->steps);
  EXPECT_EQ(via_proto.Hash(), state.Hash());
  EXPECT_EQ(via_proto.ToString(), state.ToString());
}

TEST(ReplayTest, HashIsStableAcrossProcessesAndBuilds) {
  // The hash of a fixed step list is a constant: states from other
  // processes (workers, earlier runs in the record store) must compare equal.
  State state(testing::Matmul(64, 64, 64));
  EXPECT_EQ(state.Hash(), State(testing::Matmul(8, 8, 8)).Hash());  // no steps: one value
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {8}, true}).ok());
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 0, IterAnnotation::kParallel}).ok());
  EXPECT_EQ(StepToString(state.steps()[0]),
            "split(stage=2, iter=0, lengths=[8], inner_to_outer=true)");
  EXPECT_EQ(StepToString(state.steps()[1]), "annotation(stage=2, iter=0, annotation=parallel)");
  EXPECT_EQ(state.Hash(), 0xfed4df24a6bc22bfull) << std::hex << state.Hash();
}

TEST(ReplayTest, DifferentStepsGiveDifferentHashes) {
  te::ComputeDagPtr dag = testing::Matmul(64, 64, 64);
  State a = testing::ReplayOrFail(dag, {SplitStep{2, 0, {8}, true}});
  State b = testing::ReplayOrFail(dag, {SplitStep{2, 0, {8}, false}});
  State c = testing::ReplayOrFail(dag, {SplitStep{2, 0, {4}, true}});
  State d = testing::ReplayOrFail(dag, {SplitStep{2, 1, {8}, true}});
  EXPECT_NE(a.Hash(), b.Hash());
  EXPECT_NE(a.Hash(), c.Hash());
  EXPECT_NE(a.Hash(), d.Hash());
  EXPECT_NE(a.Hash(), State(dag).Hash());
}

}  // namespace
}  // namespace tuneforge::schedule
