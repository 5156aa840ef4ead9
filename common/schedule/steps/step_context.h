// What every step implementation needs: the state it edits, the index the
// step will have, and uniform error messages ("split (step 3): ...") that
// name stages by name and index and iterators by index and name.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/schedule/state.h"

namespace tuneforge::schedule {

struct StepContext {
  State* state = nullptr;
  int step_index = 0;
  const char* kind = "";  // StepKindName of the step

  // InvalidArgument "<kind> (step N): <parts...>".
  template <class... Parts>
  absl::Status Error(const Parts&... parts) const {
    return absl::InvalidArgumentError(absl::StrCat(kind, " (step ", step_index, "): ", parts...));
  }

  const Stage& stage(int s) const { return state->stage(s); }

  // Index checks; each returns the error to report or OK.
  absl::Status CheckStage(int s) const;
  // CheckStage, and the stage must be a compute op (placeholders have no loops).
  absl::Status CheckComputeStage(int s) const;
  // CheckComputeStage, and `iter` must index one of its current iterators.
  absl::Status CheckIter(int s, int iter) const;
  // A storage scope of cache stages: "global", "shared" or "local".
  absl::Status CheckScope(const std::string& scope) const;
};

// "'C' (2)": a stage by name and index.
std::string StageLabel(const State& state, int stage);
// "iterator 1 ('j.0')": an iterator of a stage by index and name.
std::string IterLabel(const Stage& stage, int iter);

}  // namespace tuneforge::schedule
