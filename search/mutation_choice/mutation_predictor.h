// Learned mutation choice (Han, Wang, Li, Gao, 2025): predicts, from a
// parent program's features, how likely each mutation rule is to give a
// child that beats the parent, so the evolutionary search spends its
// mutations on the rules that pay for this kind of program.
//
// One logistic regression per rule over the program's feature summary (the
// element-wise max of its per-store feature rows, standardized by running
// means and variances), trained online by AdaGrad on outcomes of two kinds:
//   - evolution: did the child score above its parent under the cost model
//     (thousands per round, cheap);
//   - measured: did the child run faster than its measured parent (few, real;
//     they weigh more).
// A value type: the evolution breeds from a copy while the target's shared
// one (learned_search_state.h) keeps learning.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "search/features/features.h"
#include "search/mutations/mutations.h"

namespace tuneforge::search {

// What the predictor reads of a program: one value per feature, the
// largest over its stores (NumFeatures() zeros for a program without one).
std::vector<float> FeatureSummary(const ProgramFeatures& features);

struct MutationOutcome {
  std::vector<float> parent;  // FeatureSummary of the parent
  MutationKind kind = MutationKind::kTileSize;
  bool improved = false;      // the child beat the parent (scored or measured)
  float weight = 1;           // measured outcomes count more than scored ones
};

class MutationPredictor {
 public:
  // A rule's odds are trusted once it has this many outcomes; before, every
  // parent gets the fixed weights.
  static constexpr int64_t kMinOutcomesPerRule = 64;
  // The share of each choice that stays with the fixed weights, so rules the
  // predictor disfavours keep being tried (and keep teaching it).
  static constexpr double kFixedShare = 0.25;

  void Learn(const std::vector<MutationOutcome>& outcomes);

  // The predicted probability that `kind` improves a parent with this
  // summary (0.5 before anything was learned).
  double Probability(const std::vector<float>& summary, MutationKind kind) const;
  // Weights to draw a rule with: `fixed` until every rule has
  // kMinOutcomesPerRule outcomes; then kFixedShare of the fixed weights
  // plus the rest in proportion to the predicted probabilities.
  std::array<double, kNumMutationKinds> ChoiceWeights(const std::vector<float>& summary,
                                                      const std::vector<double>& fixed) const;
  bool ready() const;
  int64_t outcomes(MutationKind kind) const { return seen_[static_cast<int>(kind)]; }
  int dimension() const { return static_cast<int>(mean_.size()); }

  // Whitespace-separated numbers, read back by Parse (DATA_LOSS when cut
  // short or not a predictor's).
  std::string Serialize() const;
  static absl::StatusOr<MutationPredictor> Parse(absl::string_view text);

 private:
  // The standardized summary with a trailing 1 for the bias.
  std::vector<double> Standardize(const std::vector<float>& summary) const;
  // The probability that rule `kind` improves a program whose standardized
  // summary is `z`.
  double ProbabilityOf(const std::vector<double>& z, int kind) const;
  void Observe(const std::vector<float>& summary);  // running mean / variance

  // Per feature: running mean and sum of squared deviations (Welford).
  std::vector<double> mean_, m2_;
  double count_ = 0;
  // Per rule: weights over the standardized summary plus a bias, their
  // AdaGrad accumulators, and the outcomes seen.
  std::array<std::vector<double>, kNumMutationKinds> weights_, squared_gradients_;
  std::array<int64_t, kNumMutationKinds> seen_{};
};

}  // namespace tuneforge::search
