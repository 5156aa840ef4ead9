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
#include "search/learned_search_state.h"

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
  // While one is alive, AddMeasured's retraining waits: programs are added,
  // and the last batch to close retrains once on everything. A model job's
  // round updates the policy of every task it measured; without a batch
  // each update retrained from scratch (up to 27 times a round for
  // ResNet-50, each on every program so far).
  class Batch {
   public:
    explicit Batch(SharedCostModel& model);
    ~Batch();
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

   private:
    SharedCostModel& model_;
  };

  std::vector<float> Predict(const std::vector<const ProgramFeatures*>& programs) const;
  std::vector<float> PredictStores(const ProgramFeatures& program) const;
  bool trained() const;
  int64_t num_programs() const;

  // The current model's bytes (with its kind), for the record store.
  absl::StatusOr<std::pair<std::string, std::string>> Serialize() const;
  // Loads a saved model to predict with until the next retraining.
  absl::Status Load(const std::string& kind, const std::string& bytes);

  // What the learned search options learned on this target (saved with the
  // model).
  LearnedSearchState& learned() { return learned_; }
  const LearnedSearchState& learned() const { return learned_; }

 private:
  // The model in use now; it stays valid for the caller while a retraining
  // swaps in the next one.
  std::shared_ptr<const CostModel> Current() const;
  // Trains a fresh model on all of data_ and swaps it in; data_mu_ held.
  absl::Status RetrainLocked();

  std::function<std::unique_ptr<CostModel>()> make_model_;
  mutable std::shared_mutex model_mu_;
  std::shared_ptr<const CostModel> model_;  // swapped whole under model_mu_
  mutable std::mutex data_mu_;              // the training set; one retraining at a time
  absl::flat_hash_map<std::string, std::vector<MeasuredProgram>> data_;
  int64_t count_ = 0;
  int open_batches_ = 0;         // under data_mu_
  bool retrain_pending_ = false;  // a retraining an open batch put off
  LearnedSearchState learned_;
};

}  // namespace tuneforge::search
