// The store rows of many programs stacked into one dense row-major matrix,
// as XGBoost takes them: program i owns rows [begin[i], begin[i+1]).
// Training checks every program (a malformed one is the caller's bug and
// an error); prediction cannot fail, so a program it cannot read gets no
// rows and scores 0.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "search/features/features.h"

namespace tuneforge::search {

struct StackedRows {
  int num_features = 0;
  std::vector<float> values;  // num_rows() * num_features
  std::vector<size_t> begin;  // one entry per program, plus the end
  size_t num_rows() const { return begin.empty() ? 0 : begin.back(); }
  size_t num_programs() const { return begin.empty() ? 0 : begin.size() - 1; }
};

// OK, or why `program` is malformed (negative counts, values of the wrong size).
absl::Status CheckProgramShape(const ProgramFeatures& program);

// Every program must be well formed and all programs with rows must have
// the same num_features; labels must be finite and >= 0, one per program
// (INVALID_ARGUMENT naming the index otherwise). Programs without rows
// keep an empty range, so labels stay aligned.
absl::StatusOr<StackedRows> StackForTraining(const std::vector<const ProgramFeatures*>& programs,
                                             const std::vector<float>& labels);

// Programs that are null, malformed or of another width than
// `num_features` get no rows.
StackedRows StackForPrediction(const std::vector<const ProgramFeatures*>& programs, int num_features);

// Sums row values per program (a program without rows sums to 0).
std::vector<float> SumPerProgram(const std::vector<float>& row_values, const std::vector<size_t>& begin);

}  // namespace tuneforge::search
