// Ansor's per-store feature vector (OSDI 2020, appendix): one row of
// NumFeatures() floats for every Store statement of a program's lowered loop
// nest, describing the computation it does, the loops around it
// (vectorize / unroll / parallel), the buffers it touches, its arithmetic
// intensity and its allocation. The cost model scores each row and sums the
// scores per program. Extracted from the lowered IR without code generation,
// so thousands of states per round cost little.
//
// The features, their order and their meaning are listed once, in
// feature_table.h; FeatureNames() is generated from that list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/lower/lower.h"
#include "common/lower/stmt.h"
#include "common/schedule/state.h"

namespace tuneforge::search {

// Bumped whenever a feature is added, removed or changes meaning; stored
// beside every saved cost model, which is refused on a mismatch.
inline constexpr int kFeatureSchemaVersion = 2;  // 2: constant matrices read as 1

int NumFeatures();
// Names in row order, e.g. "float_mad", "vec_len", "B0.bytes".
const std::vector<std::string>& FeatureNames();

// The features of one program: num_stores rows of NumFeatures() floats,
// row-major. A program with no store has no rows.
// Self-contained (it carries its row width), so a cost model reads it
// without linking the extractor.
struct ProgramFeatures {
  int num_stores = 0;
  int num_features = 0;            // NumFeatures() when extracted
  std::vector<float> values;       // num_stores * num_features, row-major
  std::vector<int> store_stage;    // per row: the state's stage that writes the store, or -1

  const float* row(int i) const { return values.data() + static_cast<size_t>(i) * num_features; }
};

// How a state is lowered for features: unroll / vectorize loops stay
// annotated loops (they are features, and unrolling would only cost time).
lower::LowerOptions FeatureLowerOptions();

// Features of a program lowered with FeatureLowerOptions().
// `state` maps buffers to stages; it may be null (store_stage all -1).
ProgramFeatures ExtractFeatures(const lower::LoweredFunc& func, const schedule::State* state);

// Lowers `state` for features (no code generation) and extracts them.
absl::StatusOr<ProgramFeatures> ExtractFeatures(const schedule::State& state);

// The same for many states on `threads` threads (0: the machine's cores);
// result i belongs to states[i].
std::vector<absl::StatusOr<ProgramFeatures>> ExtractFeaturesBatch(
    const std::vector<schedule::State>& states, int threads = 0);

}  // namespace tuneforge::search
