#include "common/schedule/steps/placement.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/schedule/bound.h"
#include "common/schedule/steps/step_context.h"

namespace tuneforge::schedule {
namespace {

bool IsInlined(const Stage& s) { return std::holds_alternative<ComputeInlined>(s.location); }

// Follows compute_at targets upwards from `from`; an error if the chain
// reaches `stage` or never ends (a cycle of placements).
absl::Status CheckNoCycle(const State& state, int stage, int from) {
  int current = from;
  for (int hops = 0; hops <= state.num_stages(); ++hops) {
    if (current == stage)
      return absl::InvalidArgumentError(absl::StrCat(
          "stage ", StageLabel(state, stage), " would be computed inside its own loops (through ",
          StageLabel(state, from), "); place it in a loop of a consumer instead"));
    const auto* at = std::get_if<ComputeAtIter>(&state.stage(current).location);
    if (!at) return absl::OkStatus();
    current = at->target_stage;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the placements starting at stage ", StageLabel(state, from), " form a cycle"));
}

std::string LoopLabel(const State& state, int stage, int node) {
  const Stage& s = state.stage(stage);
  return absl::StrCat("loop ", s.IterIndexOfNode(node), " ('", s.nodes[node].name, "') of ",
                      StageLabel(state, stage));
}

}  // namespace

std::vector<int> ConsumersThroughInlined(const State& state, int stage) {
  std::vector<int> out;
  std::vector<bool> seen(state.num_stages(), false);
  std::vector<int> work = state.dag()->analysis(stage).consumers;
  while (!work.empty()) {
    int c = work.back();
    work.pop_back();
    if (seen[c]) continue;
    seen[c] = true;
    if (IsInlined(state.stage(c))) {
      for (int next : state.dag()->analysis(c).consumers) work.push_back(next);
    } else {
      out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::Status CheckPlacement(const State& state, int stage) {
  const auto* at = std::get_if<ComputeAtIter>(&state.stage(stage).location);
  if (!at) return absl::OkStatus();
  const std::string name = StageLabel(state, stage);
  const int target = at->target_stage;
  if (target < 0 || target >= state.num_stages())
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", name, " is placed in stage ", target, ", which does not exist"));
  const Stage& t = state.stage(target);
  if (t.is_placeholder() || IsInlined(t))
    return absl::InvalidArgumentError(absl::StrCat(
        "stage ", name, " is placed in ", StageLabel(state, target), ", which is ",
        t.is_placeholder() ? "a placeholder" : "inlined", " and has no loops; place it elsewhere"));
  if (t.IterIndexOfNode(at->target_node) < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", name, " is placed in node ", at->target_node, " of ",
                     StageLabel(state, target), ", which is not one of its current loops"));
  if (state.dag()->analysis(stage).is_output)
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", name, " is an output of the program; outputs are computed at root"));
  if (absl::Status s = CheckNoCycle(state, stage, target); !s.ok()) return s;

  const std::vector<int> consumers = ConsumersThroughInlined(state, stage);
  const LoopPath path = EnclosingLoops(state, stage);
  for (int c : consumers) {
    if (c == target) continue;
    if (absl::Status s = CheckNoCycle(state, stage, c); !s.ok()) return s;
    LoopPath cpath = EnclosingLoops(state, c);
    if (cpath.size() < path.size() || !std::equal(path.begin(), path.end(), cpath.begin()))
      return absl::InvalidArgumentError(absl::StrCat(
          "stage ", name, " is read by ", StageLabel(state, c), ", which is not computed inside ",
          LoopLabel(state, target, at->target_node),
          "; place a stage in a loop of its consumer (or of a stage holding all its consumers)"));
  }
  return absl::OkStatus();
}

absl::Status CheckAllPlacements(const State& state) {
  for (int s = 0; s < state.num_stages(); ++s)
    if (absl::Status st = CheckPlacement(state, s); !st.ok()) return st;
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
