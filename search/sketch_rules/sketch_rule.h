// A derivation rule of Ansor's sketch generation (OSDI 2020, section 4.1).
// Sketch generation visits the stages of a state from the last (outputs) to
// the first; at each stage every rule is asked, in list order, whether it
// applies, and each applying rule derives new states from the current one:
//
//   for rule in rules:
//     decision = rule.Check(state, stage)
//     if decision != kSkip: next += rule.Apply(state, stage)
//     if decision == kApplyAndSkipRest: stop asking rules
//
// Apply returns the derived states with the index of the stage to visit
// next (usually stage - 1; a rule that inserts a stage it wants visited
// returns its index). A new rule is one class in its own file plus a line in
// the list it belongs to (sketch_rules.cc), or a list of the user's own.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/schedule/state.h"
#include "search/search_task.h"

namespace tuneforge::search {

enum class RuleDecision { kSkip, kApply, kApplyAndSkipRest };

struct DerivedState {
  schedule::State state;
  int next_stage = 0;
  // Tells apart the states one rule derives from one state (e.g. "fused at
  // tile level 2"); shown in parentheses after the rule's name.
  std::string variant;
};

class SketchRule {
 public:
  virtual ~SketchRule() = default;
  // Shown by `tuneforge show --sketches` ("multi_level_tiling").
  virtual const char* name() const = 0;
  virtual RuleDecision Check(const schedule::State& state, int stage, const HardwareParams& hw) const = 0;
  // Derived states; a derivation whose steps the state refuses is dropped.
  virtual std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                          const HardwareParams& hw) const = 0;
};

}  // namespace tuneforge::search
