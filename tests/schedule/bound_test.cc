// Bound inference: a stage computed inside another's loop gets the region
// its consumers read in one iteration of that loop.
#include "common/schedule/bound.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/te/expr_util.h"
#include "common/te/workload.h"

namespace tuneforge::schedule {
namespace {

using ::testing::HasSubstr;

te::ComputeDagPtr Dag(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  return w->dag;
}

// matmul C[12, 20]: C.local computed at C's j.0 in tiles of 4 x 5.
State TiledMatmul() {
  State s(Dag("matmul:M=12,N=20,K=7"));
  for (Step step : std::vector<Step>{CacheWriteStep{2, "local"}, SplitStep{3, 0, {4}, true},
                                     SplitStep{3, 2, {5}, true}, ReorderStep{3, {0, 2, 1, 3}},
                                     ComputeAtStep{2, 3, 1}})
    EXPECT_TRUE(s.Apply(step).ok()) << s.ToString();
  return s;
}

TEST(BoundTest, AttachedStageGetsTheTile) {
  State s = TiledMatmul();
  const Stage& local = s.stage(2);
  EXPECT_EQ(local.nodes[0].extent, 4);  // i
  EXPECT_EQ(local.nodes[1].extent, 5);  // j
  EXPECT_EQ(local.nodes[2].extent, 7);  // k: reductions keep their full extent
}

TEST(BoundTest, RegionStartsAtTheTileOrigin) {
  State s = TiledMatmul();
  LoopVars vars = MakeLoopVars(s);
  absl::StatusOr<std::vector<Region>> regions = InferRegions(s, vars);
  ASSERT_TRUE(regions.ok()) << regions.status();
  const Region& r = (*regions)[2];
  EXPECT_EQ(te::ToString(r.min[0]), "(i.0 * 4)");
  EXPECT_EQ(te::ToString(r.min[1]), "(j.0 * 5)");
  EXPECT_EQ(r.extent, (std::vector<int64_t>{4, 5}));
  // The root stage covers its whole output.
  EXPECT_EQ((*regions)[3].extent, (std::vector<int64_t>{12, 20}));
}

TEST(BoundTest, BackToRootRestoresTheFullShape) {
  State s = TiledMatmul();
  ASSERT_TRUE(s.Apply(ComputeRootStep{2}).ok());
  EXPECT_EQ(s.stage(2).nodes[0].extent, 12);
  EXPECT_EQ(s.stage(2).nodes[1].extent, 20);
}

TEST(BoundTest, PaddingAtAConvolutionRowCoversTheWindow) {
  // pad[n, c, oh*2 + ry, ow*2 + rx] read inside conv's loop oh: one output
  // row needs R = 3 padded rows and every padded column.
  State s(Dag("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,pad=1,stride=2"));
  int pad = s.StageIndex("pad"), conv = s.num_stages() - 1;
  ASSERT_TRUE(s.Apply(ComputeAtStep{pad, conv, 2}).ok()) << s.ToString();
  const Stage& p = s.stage(pad);
  EXPECT_EQ(p.nodes[0].extent, 1);   // n
  EXPECT_EQ(p.nodes[1].extent, 3);   // every input channel
  EXPECT_EQ(p.nodes[2].extent, 3);   // the window's rows
  EXPECT_EQ(p.nodes[3].extent, 9);   // ow*2 + rx <= 3*2 + 2: the last padded column is unused
  LoopVars vars = MakeLoopVars(s);
  absl::StatusOr<std::vector<Region>> regions = InferRegions(s, vars);
  ASSERT_TRUE(regions.ok());
  EXPECT_EQ(te::ToString((*regions)[pad].min[2]), "(oh * 2)");
}

TEST(BoundTest, SplitFactorsClampToASmallerRegion) {
  // C.local's i is split by 8, but its tile has only 4 rows: the inner loop
  // becomes 4 and the outer 1 (no guarded tail), as in te.
  State s = TiledMatmul();
  ASSERT_TRUE(s.Apply(SplitStep{2, 0, {8}, true}).ok()) << s.ToString();
  EXPECT_EQ(s.stage(2).iter_node(0).extent, 1);
  EXPECT_EQ(s.stage(2).iter_node(1).extent, 4);
}

// Tiles that do not divide the region are whole tiles: the region grows to
// their span, past the tensor's end where it reaches it, so the local buffer
// holds them and their loops need no test of their own.
TEST(BoundTest, TilesThatDoNotDivideTheRegionPadItToWholeTiles) {
  // C.local's own split: its 5 columns in tiles of 2 are 3 tiles, 6 columns;
  // the last column tile (j.0 = 3) then reaches column 21 of C's 20.
  State own = TiledMatmul();
  ASSERT_TRUE(own.Apply(SplitStep{2, 1, {2}, true}).ok()) << own.ToString();
  ASSERT_TRUE(InferBound(&own).ok());  // a split alone does not infer again
  EXPECT_EQ(own.stage(2).nodes[1].extent, 6);
  LoopVars vars = MakeLoopVars(own);
  absl::StatusOr<std::vector<Region>> regions = InferRegions(own, vars);
  ASSERT_TRUE(regions.ok()) << regions.status();
  EXPECT_EQ((*regions)[2].extent, (std::vector<int64_t>{4, 6}));

  // The consumer's: C's 20 columns in tiles of 8 are read from column 0 to
  // 23 inside C's row loop, where C.local is computed: 24 columns.
  State consumer(Dag("matmul:M=12,N=20,K=7"));
  for (Step step : std::vector<Step>{CacheWriteStep{2, "local"}, SplitStep{3, 1, {8}, true},
                                     ComputeAtStep{2, 3, 0}})
    ASSERT_TRUE(consumer.Apply(step).ok()) << consumer.ToString();
  EXPECT_EQ(consumer.stage(2).nodes[0].extent, 1);
  EXPECT_EQ(consumer.stage(2).nodes[1].extent, 24);
  vars = MakeLoopVars(consumer);
  regions = InferRegions(consumer, vars);
  ASSERT_TRUE(regions.ok()) << regions.status();
  EXPECT_EQ((*regions)[2].extent, (std::vector<int64_t>{1, 24}));
  EXPECT_EQ(te::ToString((*regions)[2].min[1]), "0");
}

TEST(BoundTest, ConsumerOutsideTheLoopIsRejected) {
  // softmax's max stage is read by the exp stage and by the normalization:
  // placing it inside only one of them leaves the other without it.
  State s(Dag("softmax:M=4,N=9"));
  std::string before = s.ToString();
  bool rejected = false;
  for (int stage = 0; stage < s.num_stages() && !rejected; ++stage) {
    const auto& consumers = s.dag()->analysis(stage).consumers;
    if (s.stage(stage).is_placeholder() || consumers.size() < 2) continue;
    absl::Status st = s.Apply(ComputeAtStep{stage, consumers[0], 0});
    rejected = !st.ok();
    EXPECT_THAT(std::string(st.message()), HasSubstr("consumer"));
  }
  EXPECT_TRUE(rejected) << "softmax has no stage read twice?\n" << s.ToString();
  EXPECT_EQ(s.ToString(), before);  // a rejected step changes nothing
}

}  // namespace
}  // namespace tuneforge::schedule
