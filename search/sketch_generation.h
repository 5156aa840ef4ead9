// Sketch generation (Ansor section 4.1): the rules of sketch_rules/ applied
// to every stage, from the outputs back to the inputs, over every derivation
// they offer. A sketch is a state whose structure is fixed (tiling levels,
// cache stages, fusion, inlining) and whose tile sizes are placeholders (1);
// annotation (annotation/) fills them in.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"
#include "search/sketch_rules/sketch_rule.h"

namespace tuneforge::search {

struct Sketch {
  schedule::State state;
  // "stage name: rule" for every rule that changed the state, in order.
  std::vector<std::string> derivation;
};

// Distinct sketches (by state hash), at most `max_sketches`. An error when
// the rules derive none (a rule list without a fallback like skip).
absl::StatusOr<std::vector<Sketch>> GenerateSketches(
    const te::ComputeDagPtr& dag, const HardwareParams& hw,
    const std::vector<std::unique_ptr<SketchRule>>& rules, int max_sketches = 64);

// The sketches of the default CPU rules.
absl::StatusOr<std::vector<Sketch>> GenerateCpuSketches(const te::ComputeDagPtr& dag,
                                                        const HardwareParams& hw);
// The sketches of the default GPU rules.
absl::StatusOr<std::vector<Sketch>> GenerateGpuSketches(const te::ComputeDagPtr& dag,
                                                        const HardwareParams& hw);
// The GPU's or the CPU's, as hw.gpu says.
absl::StatusOr<std::vector<Sketch>> GenerateDefaultSketches(const te::ComputeDagPtr& dag,
                                                            const HardwareParams& hw);

}  // namespace tuneforge::search
