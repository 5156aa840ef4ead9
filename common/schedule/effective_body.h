// What each stage really computes once inlined stages are substituted into
// their consumers: the bodies lowering and bound inference work on.
#pragma once

#include <vector>

#include "common/schedule/state.h"
#include "common/te/expr.h"

namespace tuneforge::schedule {

bool IsInlined(const Stage& stage);

// For every compute stage: its body with each read of an inlined stage
// replaced by that stage's (recursively inlined) expression. Null for
// placeholders. Inlined stages get their own substituted body too.
std::vector<te::Expr> EffectiveBodies(const State& state);

// For every stage: the non-inlined stages whose effective body reads it
// (through any chain of inlined stages), in stage order.
std::vector<std::vector<int>> EffectiveConsumers(const State& state,
                                                 const std::vector<te::Expr>& bodies);

}  // namespace tuneforge::schedule
