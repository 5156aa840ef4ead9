#include "search/sketch_rules/tiling.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tuneforge::search {
namespace {

using schedule::State;

// Splits iterators 0..n-1 of `stage` (last first, so earlier indices hold)
// into parts[i] loops each. Returns the step index of each split, -1 where
// parts[i] == 1. `follow` (one source split per iterator) makes them
// follow splits instead.
absl::StatusOr<std::vector<int>> SplitAll(State* state, int stage, const std::vector<int>& parts,
                                          const std::vector<int>* follow) {
  std::vector<int> step_of(parts.size(), -1);
  for (int i = static_cast<int>(parts.size()) - 1; i >= 0; --i) {
    if (parts[i] <= 1) continue;
    schedule::Step step = schedule::SplitStep{stage, i, std::vector<int64_t>(parts[i] - 1, 1), true};
    if (follow) step = schedule::FollowSplitStep{stage, i, (*follow)[i], parts[i] - 1};
    step_of[i] = static_cast<int>(state->steps().size());
    if (absl::Status s = state->Apply(step); !s.ok()) return s;
  }
  return step_of;
}

// First loop index of each original iterator after SplitAll.
std::vector<int> Bases(const std::vector<int>& parts) {
  std::vector<int> base(parts.size());
  int at = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    base[i] = at;
    at += std::max(parts[i], 1);
  }
  return base;
}

}  // namespace

bool IsValidTileStructure(const std::string& structure) {
  return !structure.empty() && structure.find_first_not_of("SR") == std::string::npos &&
         structure.find('S') != std::string::npos;
}

absl::StatusOr<std::vector<int>> ApplyMultiLevelTiling(State* state, int stage,
                                                       const std::string& structure, int inner_axis) {
  if (!IsValidTileStructure(structure))
    return absl::InvalidArgumentError(absl::StrCat(
        "tile structure '", structure, "' must be letters S and R with at least one S (e.g. SSRSRS)"));
  const schedule::Stage& st = state->stage(stage);
  const int ns = st.num_spatial_axes();
  const int n = static_cast<int>(st.iters.size());
  const int s_levels = static_cast<int>(std::count(structure.begin(), structure.end(), 'S'));
  const int r_levels = static_cast<int>(std::count(structure.begin(), structure.end(), 'R'));
  std::vector<int> parts(n);
  for (int i = 0; i < n; ++i) parts[i] = i < ns ? s_levels : std::max(r_levels, 1);
  absl::StatusOr<std::vector<int>> steps = SplitAll(state, stage, parts, nullptr);
  if (!steps.ok()) return steps.status();
  const std::vector<int> base = Bases(parts);
  std::vector<int> order;
  int s_level = 0, r_level = 0;
  for (char c : structure) {
    if (c == 'S') {
      const bool innermost = s_level == s_levels - 1;
      for (int i = 0; i < ns; ++i)
        if (!innermost || i != inner_axis) order.push_back(base[i] + s_level);
      if (innermost && inner_axis >= 0 && inner_axis < ns) order.push_back(base[inner_axis] + s_level);
      ++s_level;
    } else if (r_levels > 0) {
      for (int i = ns; i < n; ++i) order.push_back(base[i] + r_level);
      ++r_level;
    }
  }
  if (r_levels == 0)  // reduction loops (unsplit) go innermost
    for (int i = ns; i < n; ++i) order.push_back(base[i]);
  if (absl::Status s = state->Apply(schedule::ReorderStep{stage, order}); !s.ok()) return s;
  steps->resize(ns);
  return *steps;
}

absl::Status FuseIntoConsumer(State* state, int producer, int consumer,
                              const std::vector<int>& producer_splits, int level) {
  const int ns = state->stage(consumer).num_spatial_axes();
  if (ns != static_cast<int>(producer_splits.size()) || ns != static_cast<int>(state->stage(consumer).iters.size()))
    return absl::FailedPreconditionError("the consumer's loops do not match the producer's spatial axes");
  std::vector<int> parts(ns, level + 1);
  absl::StatusOr<std::vector<int>> steps = SplitAll(state, consumer, parts, &producer_splits);
  if (!steps.ok()) return steps.status();
  const std::vector<int> base = Bases(parts);
  std::vector<int> order;
  for (int l = 0; l <= level; ++l)
    for (int i = 0; i < ns; ++i) order.push_back(base[i] + l);
  if (absl::Status s = state->Apply(schedule::ReorderStep{consumer, order}); !s.ok()) return s;
  return state->Apply(schedule::ComputeAtStep{producer, consumer, level * ns - 1});
}

absl::Status FuseLoops(State* state, int stage, int first, int count) {
  if (count < 2) return absl::OkStatus();
  std::vector<int> iters;
  for (int i = first; i < first + count; ++i) iters.push_back(i);
  return state->Apply(schedule::FuseStep{stage, iters});
}

absl::Status FuseAndSplitReduction(State* state, int stage) {
  const int ns = state->stage(stage).num_spatial_axes();
  const int n = static_cast<int>(state->stage(stage).iters.size());
  if (absl::Status s = FuseLoops(state, stage, ns, n - ns); !s.ok()) return s;
  return state->Apply(schedule::SplitStep{stage, ns, {1}, true});
}

std::vector<int> MultiLevelTileSplits(const State& state, int stage) {
  const std::string& name = state.stage(stage).op->name;
  const int ns = state.stage(stage).num_spatial_axes();
  std::vector<int> by_axis(ns, -1);
  State replay(state.original_dag());
  for (size_t i = 0; i < state.steps().size(); ++i) {
    const schedule::Step& step = state.steps()[i];
    const auto* split = std::get_if<schedule::SplitStep>(&step);
    // A split of an axis's own loop (root node i is axis i) into levels.
    if (split && replay.stage(split->stage).op->name == name && split->iter < ns && split->lengths.size() >= 2 &&
        replay.stage(split->stage).iters[split->iter].node == split->iter && by_axis[split->iter] < 0)
      by_axis[split->iter] = static_cast<int>(i);
    if (!replay.Apply(step).ok()) return {};
  }
  for (int s : by_axis)
    if (s < 0) return {};
  return by_axis;
}

int OutermostReductionTileEnd(const State& state, int stage) {
  // The outermost tile has one loop per reduction axis (R0 R1 of SSSRRSRS
  // are adjacent, so the run of reduction loops is not the tile).
  const schedule::Stage& st = state.stage(stage);
  const te::Reduce* red = st.op->reduce();
  const int per_tile = red ? static_cast<int>(red->axes.size()) : 0;
  int seen = 0;
  for (int i = 0; i < static_cast<int>(st.iters.size()) && per_tile > 0; ++i)
    if (st.iter_node(i).kind == schedule::IterKind::kReduce && ++seen == per_tile) return i;
  return -1;
}

}  // namespace tuneforge::search
