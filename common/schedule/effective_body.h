// What each stage really computes once inlined stages are substituted into
// their consumers: the bodies lowering and bound inference work on.
#pragma once

#include <memory>
#include <vector>

#include "common/schedule/state.h"
#include "common/te/expr.h"

namespace tuneforge::schedule {

bool IsInlined(const Stage& stage);

// For every compute stage: its body with each read of an inlined stage
// replaced by that stage's (recursively inlined) expression. Null for
// placeholders. Inlined stages get their own substituted body too.
std::vector<te::Expr> EffectiveBodies(const State& state);
// The same with every read of an inlined constant matrix (Winograd's B, G,
// A) as the constant 1: what the search's features describe (LowerOptions::
// constant_matrices_as_one).
std::vector<te::Expr> EffectiveBodiesWithUnitMatrices(const State& state);

// For every stage: the non-inlined stages whose effective body reads it
// (through any chain of inlined stages), in stage order.
std::vector<std::vector<int>> EffectiveConsumers(const State& state,
                                                 const std::vector<te::Expr>& bodies);

// Both of the above for one state, with what they depend on: each stage's
// op and whether it is inlined.
struct EffectiveStages {
  std::vector<te::Tensor> ops;
  std::vector<bool> inlined;
  std::vector<te::Expr> bodies;
  std::vector<std::vector<int>> consumers;
};
// The state's memo when its ops and inlining are still those of the memo,
// else computed afresh (the search replays thousands of step lists, each
// running bound inference after most steps; Winograd's inlined matrices made
// recomputing the bodies most of a search round).
std::shared_ptr<const EffectiveStages> EffectiveStagesOf(const State& state);

}  // namespace tuneforge::schedule
