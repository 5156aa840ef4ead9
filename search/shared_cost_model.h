// The cost model of one target, shared by every job that tunes for it (the
// server keeps one per device key). It owns the training set: the features
// of every program measured on the target with its throughput, grouped by
// workload, and retrains the model on all of it when results arrive. Labels
// are throughputs normalized per workload (its best program scores 1), so
// workloads of different sizes train one model.
//
// Thread safety: Predict from any number of threads; AddMeasured trains a
// fresh model outside the lock and swaps it in, so predictions never wait for
// training.
#pragma once

#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "search/cost_model/cost_model.h"

namespace tuneforge::search {

struct MeasuredProgram {
  ProgramFeatures features;
  double throughput = 0;  // FLOP/s; 0 for a failed program
};

class SharedCostModel {
 public:
  // `make_model` builds an untrained model (XGBoost, or random in tests).
  explicit SharedCostModel(std::function<std::unique_ptr<CostModel>()> make_model);

  // Adds programs measured for `workload_key` and retrains on everything
  // (retrain false: only adds, e.g. records loaded when a server starts; the
  // next retraining includes them).
  absl::Status AddMeasured(const std::string& workload_key, std::vector<MeasuredProgram> programs,
                           bool retrain = true);
  std::vector<float> Predict(const std::vector<const ProgramFeatures*>& programs) const;
  std::vector<float> PredictStores(const ProgramFeatures& program) const;
  bool trained() const;
  int64_t num_programs() const;

  // The current model's bytes (with its kind), for the record store.
  absl::StatusOr<std::pair<std::string, std::string>> Serialize() const;
  // Loads a saved model to predict with until the next retraining.
  absl::Status Load(const std::string& kind, const std::string& bytes);

 private:
  // The model in use now; it stays valid for the caller while a retraining
  // swaps in the next one.
  std::shared_ptr<const CostModel> Current() const;

  std::function<std::unique_ptr<CostModel>()> make_model_;
  mutable std::shared_mutex model_mu_;
  std::shared_ptr<const CostModel> model_;  // swapped whole under model_mu_
  mutable std::mutex data_mu_;              // the training set; one retraining at a time
  absl::flat_hash_map<std::string, std::vector<MeasuredProgram>> data_;
  int64_t count_ = 0;
};

}  // namespace tuneforge::search
