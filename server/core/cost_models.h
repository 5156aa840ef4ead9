// The server's cost models: one shared model per device key, used by every
// job on that target. A model starts warm when the server has tuned for the
// target before: the saved model (record store) predicts at once, and the
// target's stored records are loaded as training data for the next
// retraining. Saved again after every retraining, with what the learned
// search options learned on the target (search/learned_search_state.h).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "search/shared_cost_model.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

struct CostModelOptions {
  // Records loaded as training data when a target's model is first used.
  int warm_start_records = 5000;
  search::XGBoostParams xgboost = [] {
    search::XGBoostParams p;
    p.threads = 1;  // the server's cores compile and time candidates meanwhile
    return p;
  }();
};

class CostModels {
 public:
  CostModels(RecordStore* store, CostModelOptions options = {});

  // The target's model, created (and warmed from the store) on first use.
  std::shared_ptr<search::SharedCostModel> For(const std::string& device_key);
  // Saves the target's current model and learned search state; errors are
  // returned, not fatal (the model is rebuilt from records after a restart
  // anyway; the learned state is learned again).
  absl::Status Save(const std::string& device_key);

 private:
  void WarmStart(const std::string& device_key, search::SharedCostModel* model);

  RecordStore* store_;
  CostModelOptions options_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<search::SharedCostModel>> models_;
};

}  // namespace tuneforge::server
