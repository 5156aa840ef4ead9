// The fields of every step kind with their names, listed once. The JSON
// and protobuf conversions and the canonical text (hence State::Hash) all
// walk these lists, so a field is added in one place (plus proto/schedule.proto,
// whose field names must match; the round-trip tests check that).
//
//   ForEachField(step, [](const char* name, auto& value) { ... });
//
// Field value types: int (an index: never negative), int64_t, bool,
// std::string, std::vector<int> (indices), std::vector<int64_t>, IterAnnotation.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "common/schedule/steps.h"

namespace tuneforge::schedule {

template <class S, class Kind>
concept StepOf = std::same_as<std::remove_const_t<S>, Kind>;

template <StepOf<SplitStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iter", s.iter);
  v("lengths", s.lengths);
  v("inner_to_outer", s.inner_to_outer);
}
template <StepOf<FollowSplitStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iter", s.iter);
  v("src_step", s.src_step);
  v("n_split", s.n_split);
}
template <StepOf<FollowFusedSplitStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iter", s.iter);
  v("src_steps", s.src_steps);
  v("level", s.level);
  v("factor_or_nparts", s.factor_or_nparts);
}
template <StepOf<ReorderStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("order", s.order);
}
template <StepOf<FuseStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iters", s.iters);
}
template <StepOf<AnnotationStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iter", s.iter);
  v("annotation", s.annotation);
}
template <StepOf<PragmaStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iter", s.iter);
  v("auto_unroll_max_step", s.auto_unroll_max_step);
}
template <StepOf<StorageAlignStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iter", s.iter);
  v("factor", s.factor);
  v("offset", s.offset);
}
template <StepOf<ComputeAtStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("target_stage", s.target_stage);
  v("target_iter", s.target_iter);
}
template <StepOf<ComputeRootStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
}
template <StepOf<ComputeInlineStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
}
template <StepOf<CacheReadStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("scope", s.scope);
  v("readers", s.readers);
}
template <StepOf<CacheWriteStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("scope", s.scope);
}
template <StepOf<RfactorStep> S, class V>
void ForEachField(S& s, V&& v) {
  v("stage", s.stage);
  v("iter", s.iter);
  v("factor_iter", s.factor_iter);
}

// Calls fn(Step{Kind{}}) for the kind whose StepKindName is `name` and
// returns true, or returns false when no kind has that name.
template <class Fn>
bool WithStepKindNamed(std::string_view name, Fn&& fn) {
  bool found = false;
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((!found && name == StepKindName(Step(std::in_place_index<I>))
          ? (found = true, fn(Step(std::in_place_index<I>)), 0)
          : 0),
     ...);
  }
  (std::make_index_sequence<std::variant_size_v<Step>>());
  return found;
}

// Every StepKindName, in variant order.
inline std::vector<std::string> StepKindNames() {
  std::vector<std::string> names;
  [&]<size_t... I>(std::index_sequence<I...>) {
    (names.push_back(StepKindName(Step(std::in_place_index<I>))), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Step>>());
  return names;
}

// The field names of the step kind `step` holds, in order.
inline std::vector<std::string> StepFieldNames(const Step& step) {
  std::vector<std::string> names;
  std::visit(
      [&](const auto& s) {
        ForEachField(s, [&](const char* n, const auto&) { names.push_back(n); });
      },
      step);
  return names;
}

}  // namespace tuneforge::schedule
