// What each step kind does to a State, said once per kind. The primary
// template has no definition, so a new step kind does not compile (StepReachOf
// visits every kind) until it has its line here.
#pragma once

#include <cstdint>
#include <type_traits>
#include <variant>

#include "common/schedule/steps.h"

namespace tuneforge::schedule {

// How far the effect of a step reaches.
enum class StepReach : uint8_t {
  kDag,         // rewrites the ComputeDag (adds a stage)
  kPlacement,   // moves a stage: the loops that bound other stages change
  kOwnLoops,    // changes only its own stage's loops, with the extents bound
                // inference would give them
  kAnnotation,  // changes no loop and no placement; bound inference reads none
};

template <class S>
struct StepTraits;  // one specialization per step kind, below

template <StepReach R>
struct ReachIs {
  static constexpr StepReach kReach = R;
};

template <> struct StepTraits<SplitStep> : ReachIs<StepReach::kOwnLoops> {};
template <> struct StepTraits<FollowSplitStep> : ReachIs<StepReach::kOwnLoops> {};
template <> struct StepTraits<FollowFusedSplitStep> : ReachIs<StepReach::kOwnLoops> {};
template <> struct StepTraits<ReorderStep> : ReachIs<StepReach::kOwnLoops> {};
template <> struct StepTraits<FuseStep> : ReachIs<StepReach::kOwnLoops> {};
template <> struct StepTraits<AnnotationStep> : ReachIs<StepReach::kAnnotation> {};
template <> struct StepTraits<PragmaStep> : ReachIs<StepReach::kAnnotation> {};
template <> struct StepTraits<StorageAlignStep> : ReachIs<StepReach::kAnnotation> {};
template <> struct StepTraits<ComputeAtStep> : ReachIs<StepReach::kPlacement> {};
template <> struct StepTraits<ComputeRootStep> : ReachIs<StepReach::kPlacement> {};
template <> struct StepTraits<ComputeInlineStep> : ReachIs<StepReach::kPlacement> {};
template <> struct StepTraits<CacheReadStep> : ReachIs<StepReach::kDag> {};
template <> struct StepTraits<CacheWriteStep> : ReachIs<StepReach::kDag> {};
template <> struct StepTraits<RfactorStep> : ReachIs<StepReach::kDag> {};

inline StepReach StepReachOf(const Step& step) {
  return std::visit(
      [](const auto& s) { return StepTraits<std::remove_cvref_t<decltype(s)>>::kReach; }, step);
}

// cache_read, cache_write, rfactor: replaying them builds a new ComputeDag.
inline bool RewritesDag(const Step& step) { return StepReachOf(step) == StepReach::kDag; }

}  // namespace tuneforge::schedule
