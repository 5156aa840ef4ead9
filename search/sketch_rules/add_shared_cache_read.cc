// Add shared-memory cache reads (GPU): each input of a tiled stage is copied
// into shared memory once per step of the stage's outermost reduction tile
// (R0 of SSSRRSRS), by all threads of the block together, and the stage's
// threads then read their operands from there. The copy's loops are fused
// and split by the block's thread count (FollowFusedSplit of the tiling's
// thread level, so a later tile size mutation keeps them in step), the inner
// part bound to threadIdx.x: the cooperative fetch of Ansor's GPU sketches.
// An inlinable producer (a conv's padding) is visited again and inlined into
// its copy by always_inline.
#include "absl/strings/match.h"
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"
#include "search/sketch_rules/tiling.h"

namespace tuneforge::search {
namespace {

// The tiled stage that reads `stage` directly and wants its input shared:
// tiled for the GPU and with a reduction loop; with its tiling's spatial
// split steps (the thread level the copy's fetch follows).
struct SharedReader {
  int stage = -1;
  std::vector<int> tile_splits;
};

SharedReader FindSharedReader(const schedule::State& state, int stage) {
  const std::vector<int>& consumers = state.dag()->analysis(stage).consumers;
  if (consumers.size() != 1) return {};
  int c = consumers[0];
  if (!NeedsMultiLevelTiling(state, c) || !IsTransformed(state, c) || OutermostReductionTileEnd(state, c) < 0)
    return {};
  std::vector<int> splits = MultiLevelTileSplits(state, c);
  if (splits.empty()) return {};
  return {c, std::move(splits)};
}

class AddSharedCacheReadRule : public SketchRule {
 public:
  const char* name() const override { return "add_shared_cache_read"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    if (IsInlined(state, stage) || absl::EndsWith(state.stage(stage).op->name, ".shared") ||
        FindSharedReader(state, stage).stage < 0)
      return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    const SharedReader reader = FindSharedReader(state, stage);
    schedule::State next = state;
    if (!next.Apply(schedule::CacheReadStep{stage, "shared", {reader.stage}}).ok()) return {};
    const int copy = stage + 1, tiled = reader.stage + 1;  // the copy is inserted after `stage`
    const int at = OutermostReductionTileEnd(next, tiled);
    if (!next.Apply(schedule::ComputeAtStep{copy, tiled, at}).ok()) return {};
    if (!FuseLoops(&next, copy, 0, static_cast<int>(next.stage(copy).iters.size())).ok()) return {};
    // Level 1 of [S1, S2, S3, S4]: the threads of the block.
    if (!next.Apply(schedule::FollowFusedSplitStep{copy, 0, reader.tile_splits, 1, true}).ok()) return {};
    if (!next.Apply(schedule::AnnotationStep{copy, 1, schedule::IterAnnotation::kThreadX}).ok()) return {};
    return {DerivedState{std::move(next), stage, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeAddSharedCacheReadRule() { return std::make_unique<AddSharedCacheReadRule>(); }

}  // namespace tuneforge::search
