// Add cache write: a stage that needs tiling but has no element-wise consumer
// to fuse into gets a local cache stage that accumulates each tile (in
// registers, after tiling) and an element-wise copy out of it. The cache
// stage is visited next, where tiling with fusion claims it. The stage
// without the cache is derived as well (kApply), as Ansor does on CPU; on a
// GPU only the cached one (kApplyAndSkipRest).
//
// On a CPU the stage without the cache writes its tile in place, so its
// vectors run along the output's last axis (along another they would
// scatter their stores, which the search skips). Where that axis is
// shorter than a vector, every vector of it is partial and its padding
// taps are masked lanes: only the cached stage is derived. The 3x3 conv
// over 14x14 rows shows why: its uncached sketches' fastest programs ran
// at 0.8x of the cached ones' and, when one of them led after the first
// random round, 1,000-trial tunings stayed in them (0.83-0.86x oneDNN).
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

class AddCacheWriteRule : public SketchRule {
 public:
  explicit AddCacheWriteRule(bool always) : always_(always) {}
  const char* name() const override { return "add_cache_write"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams& hw) const override {
    if (!NeedsMultiLevelTiling(state, stage) || IsInlined(state, stage) ||
        IsTransformed(state, stage) || IsCacheWriteStage(state, stage) ||
        HasCacheWriteStage(state, stage) || SingleElementwiseConsumer(state, stage) >= 0 ||
        ReadsCacheReadStage(state, stage))
      return RuleDecision::kSkip;
    if (always_ || RowsShorterThanAVector(state, stage, hw.vector_lanes)) return RuleDecision::kApplyAndSkipRest;
    return RuleDecision::kApply;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    schedule::State next = state;
    if (!next.Apply(schedule::CacheWriteStep{stage, "local"}).ok()) return {};
    return {DerivedState{std::move(next), stage, ""}};  // the cache stage, now at `stage`
  }

 private:
  bool always_;
};

}  // namespace

std::unique_ptr<SketchRule> MakeAddCacheWriteRule(bool always) { return std::make_unique<AddCacheWriteRule>(always); }

}  // namespace tuneforge::search
