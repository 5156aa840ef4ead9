// follow_split and follow_fused_split: splits whose lengths come from earlier
// split steps of the same schedule, so that two stages keep matching tiles
// (a cache stage follows its consumer; fused loops follow their parts).
#include "common/schedule/steps/apply_step.h"

namespace tuneforge::schedule {
namespace {

// The earlier SplitStep `src` of this schedule, or an error naming the field.
absl::StatusOr<const SplitStep*> EarlierSplit(const StepContext& ctx, int src, const char* field) {
  if (src < 0 || src >= ctx.step_index)
    return ctx.Error(field, " ", src, " is not an earlier step; this step is number ",
                     ctx.step_index, ", so it must be in 0..", ctx.step_index - 1);
  const Step& step = ctx.state->steps()[src];
  const auto* split = std::get_if<SplitStep>(&step);
  if (!split)
    return ctx.Error(field, " ", src, " is a ", StepKindName(step),
                     " step; it must name a split step");
  return split;
}

}  // namespace

absl::Status ApplyStep(const FollowSplitStep& step, const StepContext& ctx) {
  absl::StatusOr<const SplitStep*> src = EarlierSplit(ctx, step.src_step, "src_step");
  if (!src.ok()) return src.status();
  const std::vector<int64_t>& from = (*src)->lengths;
  const int max_split = static_cast<int>(from.size()) + 1;
  if (step.n_split < 1 || step.n_split > max_split)
    return ctx.Error("n_split ", step.n_split, " out of range; step ", step.src_step, " has ",
                     from.size(), " lengths, so n_split must be in 1..", max_split);
  // The first n_split - 1 lengths, then the product of the others.
  std::vector<int64_t> lengths(from.begin(), from.begin() + (step.n_split - 1));
  int64_t rest = 1;
  for (size_t i = step.n_split - 1; i < from.size(); ++i) rest *= from[i];
  lengths.push_back(rest);
  return SplitIterator(ctx, step.stage, step.iter, lengths, /*inner_to_outer=*/true);
}

absl::Status ApplyStep(const FollowFusedSplitStep& step, const StepContext& ctx) {
  if (step.src_steps.empty())
    return ctx.Error("src_steps is empty; name at least one earlier split step");
  int64_t factor = 1;
  for (int src_index : step.src_steps) {
    absl::StatusOr<const SplitStep*> src = EarlierSplit(ctx, src_index, "src_steps entry");
    if (!src.ok()) return src.status();
    const std::vector<int64_t>& lengths = (*src)->lengths;
    if (step.level < 0 || step.level >= static_cast<int>(lengths.size()))
      return ctx.Error("level ", step.level, " out of range; split step ", src_index, " has ",
                       lengths.size(), " lengths (levels 0..", lengths.size() - 1, ")");
    if (__builtin_mul_overflow(factor, lengths[step.level], &factor))
      return ctx.Error("the product of the followed lengths overflows 64 bits");
  }
  return SplitIterator(ctx, step.stage, step.iter, {factor}, step.factor_or_nparts);
}

}  // namespace tuneforge::schedule
