#include "absl/strings/str_join.h"
#include "common/schedule/steps/apply_step.h"

namespace tuneforge::schedule {

absl::Status ApplyStep(const ReorderStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckComputeStage(step.stage); !s.ok()) return s;
  const Stage& stage = ctx.stage(step.stage);
  const int n = static_cast<int>(stage.iters.size());
  const std::string order = absl::StrJoin(step.order, ", ");
  if (static_cast<int>(step.order.size()) != n)
    return ctx.Error("order [", order, "] has ", step.order.size(), " entries but stage ",
                     StageLabel(*ctx.state, step.stage), " has ", n, " iterators; list each of 0..",
                     n - 1, " exactly once");
  std::vector<bool> seen(n, false);
  for (int i : step.order) {
    if (i < 0 || i >= n)
      return ctx.Error("order [", order, "] names iterator ", i, ", out of range; stage ",
                       StageLabel(*ctx.state, step.stage), " has iterators 0..", n - 1);
    if (seen[i])
      return ctx.Error("order [", order, "] names iterator ", i,
                       " twice; list each iterator exactly once");
    seen[i] = true;
  }
  std::vector<Iterator> iters;
  for (int i : step.order) iters.push_back(stage.iters[i]);
  ctx.state->mutable_stages()[step.stage].iters = std::move(iters);
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
