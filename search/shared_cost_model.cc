#include "search/shared_cost_model.h"

#include <algorithm>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace tuneforge::search {

SharedCostModel::SharedCostModel(std::function<std::unique_ptr<CostModel>()> make_model)
    : make_model_(std::move(make_model)), model_(make_model_()) {}

absl::Status SharedCostModel::AddMeasured(const std::string& workload_key,
                                          std::vector<MeasuredProgram> programs, bool retrain) {
  std::lock_guard<std::mutex> data_lock(data_mu_);
  auto& mine = data_[workload_key];
  count_ += static_cast<int64_t>(programs.size());
  for (MeasuredProgram& p : programs) mine.push_back(std::move(p));
  if (!retrain) return absl::OkStatus();
  if (open_batches_ > 0) {
    retrain_pending_ = true;
    return absl::OkStatus();
  }
  return RetrainLocked();
}

absl::Status SharedCostModel::RetrainLocked() {
  std::vector<const ProgramFeatures*> features;
  std::vector<float> labels;
  for (const auto& [key, list] : data_) {
    double best = 0;
    for (const MeasuredProgram& p : list) best = std::max(best, p.throughput);
    if (best <= 0) continue;  // nothing of this workload ran yet: no scale to learn from
    for (const MeasuredProgram& p : list) {
      if (p.features.num_stores == 0) continue;
      features.push_back(&p.features);
      labels.push_back(static_cast<float>(p.throughput / best));
    }
  }
  if (features.empty()) return absl::OkStatus();
  std::unique_ptr<CostModel> fresh = make_model_();
  if (absl::Status s = fresh->Update(features, labels); !s.ok()) return s;
  std::unique_lock<std::shared_mutex> lock(model_mu_);
  model_ = std::move(fresh);
  return absl::OkStatus();
}

SharedCostModel::Batch::Batch(SharedCostModel& model) : model_(model) {
  std::lock_guard<std::mutex> lock(model_.data_mu_);
  ++model_.open_batches_;
}

SharedCostModel::Batch::~Batch() {
  std::lock_guard<std::mutex> lock(model_.data_mu_);
  if (--model_.open_batches_ > 0 || !model_.retrain_pending_) return;
  model_.retrain_pending_ = false;
  (void)model_.RetrainLocked();  // a failed retraining keeps the old model, as in AddMeasured's callers
}

std::shared_ptr<const CostModel> SharedCostModel::Current() const {
  std::shared_lock<std::shared_mutex> lock(model_mu_);
  return model_;
}

std::vector<float> SharedCostModel::Predict(const std::vector<const ProgramFeatures*>& programs) const {
  return Current()->Predict(programs);
}

std::vector<float> SharedCostModel::PredictStores(const ProgramFeatures& program) const {
  return Current()->PredictStores(program);
}

bool SharedCostModel::trained() const { return Current()->trained(); }

int64_t SharedCostModel::num_programs() const {
  std::lock_guard<std::mutex> lock(data_mu_);
  return count_;
}

absl::StatusOr<std::pair<std::string, std::string>> SharedCostModel::Serialize() const {
  std::shared_ptr<const CostModel> model = Current();
  absl::StatusOr<std::string> bytes = model->Serialize();
  if (!bytes.ok()) return bytes.status();
  return std::make_pair(model->kind(), *std::move(bytes));
}

absl::Status SharedCostModel::Load(const std::string& kind, const std::string& bytes) {
  std::unique_ptr<CostModel> fresh = make_model_();
  if (fresh->kind() != kind)
    return absl::InvalidArgumentError(absl::StrCat("saved cost model is '", kind, "' but this server uses '",
                                                   fresh->kind(), "'; it will be retrained from the records"));
  if (absl::Status s = fresh->Deserialize(bytes); !s.ok()) return s;
  std::unique_lock<std::shared_mutex> lock(model_mu_);
  model_ = std::move(fresh);
  return absl::OkStatus();
}

}  // namespace tuneforge::search
