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
// tiled for the GPU (its spatial splits found) and with a reduction loop.
int SharedReader(const schedule::State& state, int stage) {
  const std::vector<int>& consumers = state.dag()->analysis(stage).consumers;
  if (consumers.size() != 1) return -1;
  int c = consumers[0];
  if (!NeedsMultiLevelTiling(state, c) || !IsTransformed(state, c) || OutermostReductionTileEnd(state, c) < 0)
    return -1;
  if (MultiLevelTileSplits(state, c).empty()) return -1;
  return c;
}

class AddSharedCacheReadRule : public SketchRule {
 public:
  const char* name() const override { return "add_shared_cache_read"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    if (IsInlined(state, stage) || absl::EndsWith(state.stage(stage).op->name, ".shared") ||
        SharedReader(state, stage) < 0)
      return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    const int reader = SharedReader(state, stage);
    const std::vector<int> thread_splits = MultiLevelTileSplits(state, reader);
    schedule::State next = state;
    if (!next.Apply(schedule::CacheReadStep{stage, "shared", {reader}}).ok()) return {};
    const int copy = stage + 1, tiled = reader + 1;  // the copy is inserted after `stage`
    const int at = OutermostReductionTileEnd(next, tiled);
    if (!next.Apply(schedule::ComputeAtStep{copy, tiled, at}).ok()) return {};
    const int rank = static_cast<int>(next.stage(copy).iters.size());
    std::vector<int> all;
    for (int i = 0; i < rank; ++i) all.push_back(i);
    if (rank > 1 && !next.Apply(schedule::FuseStep{copy, all}).ok()) return {};
    // Level 1 of [S1, S2, S3, S4]: the threads of the block.
    if (!next.Apply(schedule::FollowFusedSplitStep{copy, 0, thread_splits, 1, true}).ok()) return {};
    if (!next.Apply(schedule::AnnotationStep{copy, 1, schedule::IterAnnotation::kThreadX}).ok()) return {};
    return {DerivedState{std::move(next), stage, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeAddSharedCacheReadRule() { return std::make_unique<AddSharedCacheReadRule>(); }

}  // namespace tuneforge::search
