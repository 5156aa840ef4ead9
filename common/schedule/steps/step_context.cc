#include "common/schedule/steps/step_context.h"

namespace tuneforge::schedule {

std::string StageLabel(const State& state, int stage) {
  return absl::StrCat("'", state.stage(stage).op->name, "' (", stage, ")");
}

std::string IterLabel(const Stage& stage, int iter) {
  return absl::StrCat("iterator ", iter, " ('", stage.iter_node(iter).name, "')");
}

absl::Status StepContext::CheckStage(int s) const {
  int n = state->num_stages();
  if (s < 0 || s >= n)
    return Error("stage ", s, " out of range; the state has ", n, " stages (0..", n - 1, ")");
  return absl::OkStatus();
}

absl::Status StepContext::CheckComputeStage(int s) const {
  if (absl::Status st = CheckStage(s); !st.ok()) return st;
  if (stage(s).is_placeholder())
    return Error("stage ", StageLabel(*state, s),
                 " is a placeholder (an input) and has no loops; name a compute stage");
  return absl::OkStatus();
}

absl::Status StepContext::CheckIter(int s, int iter) const {
  if (absl::Status st = CheckComputeStage(s); !st.ok()) return st;
  int n = static_cast<int>(stage(s).iters.size());
  if (iter < 0 || iter >= n)
    return Error("iterator ", iter, " out of range; stage ", StageLabel(*state, s), " has ", n,
                 " iterators (0..", n - 1, ")");
  return absl::OkStatus();
}

absl::Status StepContext::CheckScope(const std::string& scope) const {
  if (scope == "global" || scope == "shared" || scope == "local") return absl::OkStatus();
  return Error("unknown scope '", scope, "'; use \"global\", \"shared\" or \"local\"");
}

}  // namespace tuneforge::schedule
