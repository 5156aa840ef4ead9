#include "search/cost_model/stacked_rows.h"

#include <cmath>
#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tuneforge::search {
namespace {

void Append(const ProgramFeatures& program, StackedRows& rows) {
  rows.values.insert(rows.values.end(), program.values.begin(),
                     program.values.begin() + static_cast<ptrdiff_t>(program.num_stores) * program.num_features);
  rows.begin.push_back(rows.begin.back() + static_cast<size_t>(program.num_stores));
}

}  // namespace

absl::Status CheckProgramShape(const ProgramFeatures& program) {
  if (program.num_stores < 0 || program.num_features < 0)
    return absl::InvalidArgumentError(absl::StrCat("num_stores ", program.num_stores, " and num_features ",
                                                   program.num_features, " must both be >= 0"));
  if (program.num_stores > 0 && program.num_features == 0)
    return absl::InvalidArgumentError(
        absl::StrCat("it has ", program.num_stores, " store rows of 0 features; rows need features"));
  const size_t expected = static_cast<size_t>(program.num_stores) * static_cast<size_t>(program.num_features);
  if (program.values.size() != expected)
    return absl::InvalidArgumentError(absl::StrCat("it holds ", program.values.size(), " values but num_stores ",
                                                   program.num_stores, " x num_features ", program.num_features,
                                                   " = ", expected));
  return absl::OkStatus();
}

absl::StatusOr<StackedRows> StackForTraining(const std::vector<const ProgramFeatures*>& programs,
                                             const std::vector<float>& labels) {
  if (programs.size() != labels.size())
    return absl::InvalidArgumentError(absl::StrCat("cost model update: ", programs.size(), " programs but ",
                                                   labels.size(), " labels; pass one label per program"));
  StackedRows rows;
  rows.begin.reserve(programs.size() + 1);
  rows.begin.push_back(0);
  int width_from = -1;  // the first program with rows, whose width all must share
  for (size_t i = 0; i < programs.size(); ++i) {
    const ProgramFeatures* program = programs[i];
    const std::string where = absl::StrCat("cost model update: programs[", i, "]: ");
    if (program == nullptr) return absl::InvalidArgumentError(where + "is null; pass the features of every program");
    if (absl::Status s = CheckProgramShape(*program); !s.ok())
      return absl::InvalidArgumentError(absl::StrCat(where, s.message()));
    if (!std::isfinite(labels[i]) || labels[i] < 0)
      return absl::InvalidArgumentError(absl::StrCat(
          "cost model update: labels[", i, "] is ", labels[i],
          "; labels are normalized throughputs, finite and >= 0 (0 for a failed program)"));
    if (program->num_stores > 0) {
      if (width_from < 0) {
        width_from = static_cast<int>(i);
        rows.num_features = program->num_features;
      } else if (program->num_features != rows.num_features) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "has rows of ", program->num_features, " features but programs[", width_from, "] has ",
            rows.num_features, "; all programs must come from the same feature extractor"));
      }
    }
    Append(*program, rows);
  }
  return rows;
}

StackedRows StackForPrediction(const std::vector<const ProgramFeatures*>& programs, int num_features) {
  StackedRows rows;
  rows.num_features = num_features;
  rows.begin.reserve(programs.size() + 1);
  rows.begin.push_back(0);
  for (const ProgramFeatures* program : programs) {
    if (program == nullptr || program->num_features != num_features || !CheckProgramShape(*program).ok()) {
      rows.begin.push_back(rows.begin.back());
      continue;
    }
    Append(*program, rows);
  }
  return rows;
}

std::vector<float> SumPerProgram(const std::vector<float>& row_values, const std::vector<size_t>& begin) {
  std::vector<float> sums(begin.empty() ? 0 : begin.size() - 1, 0.0f);
  for (size_t p = 0; p < sums.size(); ++p) {
    double sum = 0;
    for (size_t r = begin[p]; r < begin[p + 1]; ++r) sum += row_values[r];
    sums[p] = static_cast<float>(sum);
  }
  return sums;
}

}  // namespace tuneforge::search
