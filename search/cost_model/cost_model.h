// A cost model ranks candidate programs without running them. It sees a
// program as its per-store feature rows (search/features/features.h),
// scores each row and sums the scores (Ansor's design: the sum over stores
// of a program approximates its throughput).
//
//   model = MakeXGBoostModel() / MakeRandomModel(seed)
//   loop: scores = model->Predict(candidates)    // higher is better
//         measure the best ones
//         model->Update(measured, labels)        // retrain on everything so far
//
// Labels are throughputs normalized per workload to (0, 1] (the best
// measured program of a workload scores 1); failed programs are 0.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "search/features/features.h"

namespace tuneforge::search {

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Retrains on all of `programs` (the whole training set, not a delta);
  // labels[i] belongs to programs[i]. Programs with no store rows are skipped.
  virtual absl::Status Update(const std::vector<const ProgramFeatures*>& programs,
                              const std::vector<float>& labels) = 0;
  // One score per program, higher = predicted faster; a model not trained
  // yet returns scores that carry no order (all 0 or random).
  virtual std::vector<float> Predict(const std::vector<const ProgramFeatures*>& programs) const = 0;
  // Per-row scores of one program (what crossover uses to judge stages).
  virtual std::vector<float> PredictStores(const ProgramFeatures& program) const = 0;
  virtual bool trained() const = 0;
  // "xgboost" or "random": what Serialize()d bytes need to be read back.
  virtual std::string kind() const = 0;
  // Bytes Deserialize() reads back (with the feature schema version inside;
  // a mismatch is refused with an error naming both versions).
  virtual absl::StatusOr<std::string> Serialize() const = 0;
  virtual absl::Status Deserialize(const std::string& bytes) = 0;
};

struct XGBoostParams {
  int max_depth = 10;
  double eta = 0.2;
  double gamma = 0.0001;
  double min_child_weight = 0;  // Ansor's settings
  int rounds = 100;             // boosting rounds per Update (early stopped on the training loss)
  int threads = 0;              // 0: XGBoost's default
  uint64_t seed = 43;
};

std::unique_ptr<CostModel> MakeXGBoostModel(const XGBoostParams& params = {});
// Scores are uniform random: a model with no knowledge, for tests and for
// measuring what learning adds.
std::unique_ptr<CostModel> MakeRandomModel(uint64_t seed);

}  // namespace tuneforge::search
