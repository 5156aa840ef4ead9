#include "server/core/cost_models.h"

#include "absl/container/flat_hash_map.h"
#include "common/schedule/schedule_json.h"
#include "common/te/workload.h"
#include "search/features/features.h"

namespace tuneforge::server {

CostModels::CostModels(RecordStore* store, CostModelOptions options)
    : store_(store), options_(std::move(options)) {}

std::shared_ptr<search::SharedCostModel> CostModels::For(const std::string& device_key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(device_key);
  if (it != models_.end()) return it->second;
  search::XGBoostParams params = options_.xgboost;
  auto model = std::make_shared<search::SharedCostModel>([params] { return search::MakeXGBoostModel(params); });
  WarmStart(device_key, model.get());
  models_[device_key] = model;
  return model;
}

void CostModels::WarmStart(const std::string& device_key, search::SharedCostModel* model) {
  if (absl::StatusOr<std::optional<StoredCostModel>> saved = store_->LoadCostModel(device_key);
      saved.ok() && *saved) {
    (void)model->Load((*saved)->kind, (*saved)->bytes);  // another schema: retrained from records below
  }
  if (absl::StatusOr<std::optional<std::string>> learned = store_->LoadLearnedSearchState(device_key);
      learned.ok() && *learned)
    (void)model->learned().Load(**learned);  // unreadable: learned again
  absl::StatusOr<std::vector<TrainingRecord>> records =
      store_->TrainingRecords(device_key, options_.warm_start_records);
  if (!records.ok()) return;
  // Rebuild each program from its workload and schedule; records of
  // workloads this build cannot parse any more are skipped.
  absl::flat_hash_map<std::string, te::ComputeDagPtr> dags;
  absl::flat_hash_map<std::string, std::vector<schedule::State>> states;
  absl::flat_hash_map<std::string, std::vector<double>> throughputs;
  for (const TrainingRecord& r : *records) {
    auto [at, added] = dags.try_emplace(r.workload_key, nullptr);
    if (added)
      if (absl::StatusOr<te::Workload> w = te::ParseWorkload(r.workload); w.ok()) at->second = w->dag;
    if (!at->second) continue;
    absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(r.schedule_json);
    if (!s.ok()) continue;
    absl::StatusOr<schedule::State> state = schedule::State::Replay(at->second, s->steps);
    if (!state.ok()) continue;
    states[r.workload_key].push_back(*std::move(state));
    bool ok = r.error_kind == measure::MeasureErrorKind::kNone && r.median_seconds > 0;
    throughputs[r.workload_key].push_back(ok ? at->second->flops() / r.median_seconds : 0);
  }
  for (auto& [key, list] : states) {
    std::vector<absl::StatusOr<search::ProgramFeatures>> features = search::ExtractFeaturesBatch(list);
    std::vector<search::MeasuredProgram> programs;
    for (size_t i = 0; i < list.size(); ++i)
      if (features[i].ok()) programs.push_back({*std::move(features[i]), throughputs[key][i]});
    (void)model->AddMeasured(key, std::move(programs), /*retrain=*/false);
  }
}

absl::Status CostModels::Save(const std::string& device_key) {
  std::shared_ptr<search::SharedCostModel> model;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = models_.find(device_key);
    if (it == models_.end()) return absl::OkStatus();
    model = it->second;
  }
  if (!model->learned().empty())
    if (absl::Status s = store_->SaveLearnedSearchState(device_key, model->learned().Serialize()); !s.ok())
      return s;
  if (!model->trained()) return absl::OkStatus();
  absl::StatusOr<std::pair<std::string, std::string>> bytes = model->Serialize();
  if (!bytes.ok()) return bytes.status();
  return store_->SaveCostModel(device_key, bytes->first, bytes->second, model->num_programs());
}

}  // namespace tuneforge::server
