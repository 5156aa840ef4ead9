// The XGBoost cost model (Ansor, OSDI 2020, section 5.2): gradient boosted
// trees score each store row; a program scores the sum of its rows. Trained
// with the pack-sum objective (pack_sum_objective.h) from scratch at every
// Update, on every program measured so far.
//
// Threads: Predict, PredictStores and Serialize may run on several threads
// at once, and also while an Update trains: training builds a new booster
// without the lock and swaps it in at the end. Calls into one booster are
// serialized by a mutex, because XGBoost's C API keeps per-booster state
// (prediction buffers, lazy configuration) that is not safe to share; each
// call uses XGBoost's own threads (`threads`) inside.
#include <algorithm>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "search/cost_model/cost_model.h"
#include "search/cost_model/model_blob.h"
#include "search/cost_model/pack_sum_objective.h"
#include "search/cost_model/stacked_rows.h"
#include "search/cost_model/xgboost_handles.h"

namespace tuneforge::search {
namespace {

constexpr const char* kXgboostModelKind = "xgboost";
// Early stopping on the training loss: stop once `kPatienceRounds` rounds
// in a row have not lowered the best loss by a relative kMinImprovement,
// and keep the trees up to the best round.
constexpr int kPatienceRounds = 5;
constexpr double kMinImprovement = 1e-3;

// Raw margins (no transform), one per row of `matrix`.
absl::StatusOr<std::vector<float>> RowMargins(const xgb::Booster& booster, const xgb::DMatrix& matrix,
                                              bool training) {
  const std::string config = absl::StrCat(R"({"type": 1, "training": )", training ? "true" : "false",
                                          R"(, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})");
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* result = nullptr;
  if (absl::Status s = xgb::Check(
          XGBoosterPredictFromDMatrix(booster.get(), matrix.get(), config.c_str(), &shape, &dims, &result),
          "predicting");
      !s.ok())
    return s;
  bst_ulong size = dims == 0 ? 0 : 1;
  for (bst_ulong d = 0; d < dims; ++d) size *= shape[d];
  return std::vector<float>(result, result + size);
}

class XGBoostModel final : public CostModel {
 public:
  explicit XGBoostModel(const XGBoostParams& params) : params_(params) {}

  absl::Status Update(const std::vector<const ProgramFeatures*>& programs,
                      const std::vector<float>& labels) override {
    absl::StatusOr<StackedRows> rows = StackForTraining(programs, labels);
    if (!rows.ok()) return rows.status();
    if (rows->num_rows() == 0) return absl::OkStatus();  // nothing to learn from: the model stays as it is
    absl::StatusOr<xgb::Booster> booster = Train(*rows, labels);
    if (!booster.ok()) return booster.status();
    std::lock_guard<std::mutex> lock(mu_);
    booster_ = *std::move(booster);
    num_features_ = rows->num_features;
    return absl::OkStatus();
  }

  std::vector<float> Predict(const std::vector<const ProgramFeatures*>& programs) const override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!booster_) return std::vector<float>(programs.size(), 0.0f);
    const StackedRows rows = StackForPrediction(programs, num_features_);
    std::vector<float> margins = MarginsLocked(rows);
    if (margins.size() != rows.num_rows()) return std::vector<float>(programs.size(), 0.0f);
    return SumPerProgram(margins, rows.begin);
  }

  std::vector<float> PredictStores(const ProgramFeatures& program) const override {
    std::vector<float> zeros(static_cast<size_t>(std::max(program.num_stores, 0)), 0.0f);
    std::lock_guard<std::mutex> lock(mu_);
    if (!booster_) return zeros;
    const StackedRows rows = StackForPrediction({&program}, num_features_);
    std::vector<float> margins = MarginsLocked(rows);
    if (margins.size() != zeros.size()) return zeros;  // unreadable program, or XGBoost failed
    return margins;
  }

  bool trained() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<bool>(booster_);
  }

  std::string kind() const override { return kXgboostModelKind; }

  // An untrained model saves an empty payload and loads back untrained.
  absl::StatusOr<std::string> Serialize() const override {
    std::lock_guard<std::mutex> lock(mu_);
    const CostModelHeader header{kXgboostModelKind, kFeatureSchemaVersion, num_features_};
    if (!booster_) return WriteCostModelBlob(header, "");
    bst_ulong size = 0;
    const char* data = nullptr;
    if (absl::Status s = xgb::Check(XGBoosterSaveModelToBuffer(booster_.get(), R"({"format": "json"})", &size, &data),
                                    "saving the model");
        !s.ok())
      return s;
    return WriteCostModelBlob(header, absl::string_view(data, size));
  }

  // Refuses bytes of another kind or feature schema version, and, once
  // this model knows its row width (after an Update or a Deserialize), of
  // another width. On any error the model stays as it was.
  absl::Status Deserialize(const std::string& bytes) override {
    int known_width = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      known_width = num_features_;
    }
    CostModelHeader header;
    absl::StatusOr<absl::string_view> payload = ReadCostModelPayload(bytes, kXgboostModelKind, known_width, &header);
    if (!payload.ok()) return payload.status();
    xgb::Booster loaded;
    if (!payload->empty()) {
      absl::StatusOr<xgb::Booster> booster = Load(*payload, header.num_features);
      if (!booster.ok()) return booster.status();
      loaded = *std::move(booster);
    }
    std::lock_guard<std::mutex> lock(mu_);
    booster_ = std::move(loaded);
    num_features_ = header.num_features;
    return absl::OkStatus();
  }

 private:
  absl::Status SetParams(xgb::Booster& booster) const {
    const std::pair<const char*, std::string> params[] = {
        {"verbosity", "0"},  // XGBoost prints nothing
        {"objective", "reg:squarederror"},  // unused for training (we pass gradients), sets the margin's meaning
        {"base_score", "0"},  // else every row would add 0.5, and programs with more rows score higher
        {"disable_default_eval_metric", "1"},
        {"tree_method", "hist"},  // deterministic, and fast on the 100k-row sets of a long search
        {"max_depth", absl::StrCat(params_.max_depth)},
        {"eta", absl::StrCat(params_.eta)},
        {"gamma", absl::StrCat(params_.gamma)},
        {"min_child_weight", absl::StrCat(params_.min_child_weight)},
        {"seed", absl::StrCat(params_.seed)},
    };
    for (const auto& [name, value] : params)
      if (absl::Status s = booster.SetParam(name, value); !s.ok()) return s;
    if (params_.threads > 0) return booster.SetParam("nthread", absl::StrCat(params_.threads));
    return absl::OkStatus();
  }

  absl::StatusOr<xgb::Booster> Train(const StackedRows& rows, const std::vector<float>& labels) const {
    if (params_.rounds <= 0)
      return absl::InvalidArgumentError(
          absl::StrCat("cost model update: XGBoostParams.rounds is ", params_.rounds, "; it must be >= 1"));
    absl::StatusOr<xgb::DMatrix> train =
        xgb::DMatrix::FromDense(rows.values.data(), rows.num_rows(), static_cast<size_t>(rows.num_features));
    if (!train.ok()) return train.status();
    absl::StatusOr<xgb::Booster> booster = xgb::Booster::Create(&*train);
    if (!booster.ok()) return booster.status();
    if (absl::Status s = SetParams(*booster); !s.ok()) return s;

    double best_loss = std::numeric_limits<double>::infinity();
    int best_rounds = 0;  // trees of the best model seen
    for (int round = 0; round <= params_.rounds; ++round) {
      // The loss of the model with `round` trees, and its gradients.
      absl::StatusOr<std::vector<float>> margins = RowMargins(*booster, *train, /*training=*/true);
      if (!margins.ok()) return margins.status();
      PackSumGradients gradients = PackSumSquaredError(*margins, rows.begin, labels);
      if (gradients.loss < best_loss * (1 - kMinImprovement)) {
        best_loss = gradients.loss;
        best_rounds = round;
      } else if (round - best_rounds >= kPatienceRounds) {
        break;
      }
      if (round == params_.rounds) break;
      if (absl::Status s = xgb::Check(XGBoosterBoostOneIter(booster->get(), train->get(), gradients.grad.data(),
                                                            gradients.hess.data(), gradients.grad.size()),
                                      "boosting one round");
          !s.ok())
        return s;
    }
    best_rounds = std::max(best_rounds, 1);
    int boosted = 0;
    if (absl::Status s = xgb::Check(XGBoosterBoostedRounds(booster->get(), &boosted), "counting rounds"); !s.ok())
      return s;
    if (best_rounds >= boosted) return booster;
    BoosterHandle sliced = nullptr;
    if (absl::Status s = xgb::Check(XGBoosterSlice(booster->get(), 0, best_rounds, 1, &sliced),
                                    "keeping the trees of the best round");
        !s.ok())
      return s;
    return xgb::Booster(sliced);
  }

  absl::StatusOr<xgb::Booster> Load(absl::string_view payload, int num_features) const {
    absl::StatusOr<xgb::Booster> booster = xgb::Booster::Create(nullptr);
    if (!booster.ok()) return booster.status();
    if (absl::Status s = SetParams(*booster); !s.ok()) return s;
    if (absl::Status s = xgb::Check(XGBoosterLoadModelFromBuffer(booster->get(), payload.data(), payload.size()),
                                    "loading the model");
        !s.ok())
      return absl::DataLossError(absl::StrCat("cost model bytes: the XGBoost model inside cannot be read (",
                                              s.message(), "); the model will be retrained from the records"));
    bst_ulong width = 0;
    if (absl::Status s = xgb::Check(XGBoosterGetNumFeature(booster->get(), &width), "reading the row width");
        !s.ok())
      return s;
    if (width != static_cast<bst_ulong>(num_features))
      return absl::DataLossError(absl::StrCat("cost model bytes: the header says rows of ", num_features,
                                              " features but the XGBoost model inside reads ", width,
                                              "; the model will be retrained from the records"));
    return booster;
  }

  // Row margins of `rows`, or nothing when XGBoost fails (the caller then
  // scores 0: Predict has no error to return). mu_ must be held.
  std::vector<float> MarginsLocked(const StackedRows& rows) const {
    if (rows.num_rows() == 0) return {};
    absl::StatusOr<xgb::DMatrix> matrix =
        xgb::DMatrix::FromDense(rows.values.data(), rows.num_rows(), static_cast<size_t>(rows.num_features));
    if (!matrix.ok()) return {};
    absl::StatusOr<std::vector<float>> margins = RowMargins(booster_, *matrix, /*training=*/false);
    if (!margins.ok()) return {};
    return *std::move(margins);
  }

  const XGBoostParams params_;
  mutable std::mutex mu_;  // guards booster_ and num_features_, and serializes calls into booster_
  xgb::Booster booster_;   // empty until trained or loaded
  int num_features_ = 0;   // row width of booster_'s training data; 0: not known yet
};

}  // namespace

std::unique_ptr<CostModel> MakeXGBoostModel(const XGBoostParams& params) {
  return std::make_unique<XGBoostModel>(params);
}

}  // namespace tuneforge::search
