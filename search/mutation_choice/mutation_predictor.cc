#include "search/mutation_choice/mutation_predictor.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace tuneforge::search {
namespace {

constexpr double kLearningRate = 0.1;
constexpr double kL2 = 1e-4;
constexpr double kClip = 4;  // standardized values beyond this are outliers, not signal

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

constexpr absl::string_view kMagic = "tfmp";
constexpr int kFormatVersion = 1;

}  // namespace

std::vector<float> FeatureSummary(const ProgramFeatures& features) {
  const int width = features.num_features > 0 ? features.num_features : NumFeatures();
  std::vector<float> out(static_cast<size_t>(width), 0.0f);
  for (int r = 0; r < features.num_stores; ++r) {
    const float* row = features.row(r);
    for (int f = 0; f < width; ++f) out[f] = r == 0 ? row[f] : std::max(out[f], row[f]);
  }
  return out;
}

void MutationPredictor::Observe(const std::vector<float>& summary) {
  count_ += 1;
  for (size_t f = 0; f < mean_.size(); ++f) {
    const double delta = summary[f] - mean_[f];
    mean_[f] += delta / count_;
    m2_[f] += delta * (summary[f] - mean_[f]);
  }
}

std::vector<double> MutationPredictor::Standardize(const std::vector<float>& summary) const {
  std::vector<double> z(mean_.size() + 1, 0.0);
  for (size_t f = 0; f < mean_.size(); ++f) {
    const double variance = count_ > 1 ? m2_[f] / (count_ - 1) : 0;
    if (variance < 1e-12) continue;  // a constant feature tells nothing apart
    z[f] = std::clamp((summary[f] - mean_[f]) / std::sqrt(variance), -kClip, kClip);
  }
  z.back() = 1;
  return z;
}

void MutationPredictor::Learn(const std::vector<MutationOutcome>& outcomes) {
  for (const MutationOutcome& o : outcomes) {
    if (o.parent.empty()) continue;
    if (mean_.empty()) {
      mean_.assign(o.parent.size(), 0);
      m2_.assign(o.parent.size(), 0);
      for (int k = 0; k < kNumMutationKinds; ++k) {
        weights_[k].assign(o.parent.size() + 1, 0);
        squared_gradients_[k].assign(o.parent.size() + 1, 0);
      }
    }
    if (o.parent.size() != mean_.size()) continue;  // another feature schema
    Observe(o.parent);
    const std::vector<double> z = Standardize(o.parent);
    const int k = static_cast<int>(o.kind);
    std::vector<double>& w = weights_[k];
    std::vector<double>& g2 = squared_gradients_[k];
    const double error = (ProbabilityOf(z, k) - (o.improved ? 1.0 : 0.0)) * o.weight;
    for (size_t f = 0; f < z.size(); ++f) {
      if (z[f] == 0) continue;
      const double gradient = error * z[f] + kL2 * w[f];
      g2[f] += gradient * gradient;
      w[f] -= kLearningRate * gradient / (std::sqrt(g2[f]) + 1e-8);
    }
    ++seen_[k];
  }
}

double MutationPredictor::ProbabilityOf(const std::vector<double>& z, int kind) const {
  const std::vector<double>& w = weights_[kind];
  double dot = 0;
  for (size_t f = 0; f < z.size(); ++f) dot += w[f] * z[f];
  return Sigmoid(dot);
}

double MutationPredictor::Probability(const std::vector<float>& summary, MutationKind kind) const {
  if (mean_.empty() || summary.size() != mean_.size()) return 0.5;
  return ProbabilityOf(Standardize(summary), static_cast<int>(kind));
}

bool MutationPredictor::ready() const {
  return std::all_of(seen_.begin(), seen_.end(), [](int64_t n) { return n >= kMinOutcomesPerRule; });
}

std::array<double, kNumMutationKinds> MutationPredictor::ChoiceWeights(const std::vector<float>& summary,
                                                                       const std::vector<double>& fixed) const {
  std::array<double, kNumMutationKinds> out{};
  double fixed_total = 0;
  for (int k = 0; k < kNumMutationKinds; ++k) fixed_total += k < static_cast<int>(fixed.size()) ? fixed[k] : 0;
  for (int k = 0; k < kNumMutationKinds; ++k)
    out[k] = k < static_cast<int>(fixed.size()) && fixed_total > 0 ? fixed[k] / fixed_total : 1.0 / kNumMutationKinds;
  if (!ready() || summary.size() != mean_.size()) return out;
  const std::vector<double> z = Standardize(summary);  // once for every rule
  std::array<double, kNumMutationKinds> p{};
  double p_total = 0;
  for (int k = 0; k < kNumMutationKinds; ++k) p_total += p[k] = ProbabilityOf(z, k);
  if (p_total <= 0) return out;
  for (int k = 0; k < kNumMutationKinds; ++k) out[k] = kFixedShare * out[k] + (1 - kFixedShare) * p[k] / p_total;
  return out;
}

std::string MutationPredictor::Serialize() const {
  std::string out = absl::StrCat(kMagic, " ", kFormatVersion, " ", mean_.size(), " ", absl::StrFormat("%.17g", count_));
  auto append = [&out](const std::vector<double>& values) {
    for (double v : values) absl::StrAppend(&out, " ", absl::StrFormat("%.17g", v));
  };
  append(mean_);
  append(m2_);
  for (int k = 0; k < kNumMutationKinds; ++k) {
    absl::StrAppend(&out, " ", seen_[k]);
    append(weights_[k]);
    append(squared_gradients_[k]);
  }
  return out;
}

absl::StatusOr<MutationPredictor> MutationPredictor::Parse(absl::string_view text) {
  std::vector<absl::string_view> tokens = absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty());
  size_t at = 0;
  auto cut = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat("mutation predictor: ", what, " (token ", at, " of ", tokens.size(),
                                            "); the saved state is dropped and learned again"));
  };
  if (tokens.size() < 4 || tokens[0] != kMagic) return cut("not a saved mutation predictor");
  int version = 0;
  int64_t dimension = 0;
  MutationPredictor p;
  if (!absl::SimpleAtoi(tokens[1], &version) || version != kFormatVersion)
    return cut(absl::StrCat("format version '", tokens[1], "', this build reads ", kFormatVersion));
  if (!absl::SimpleAtoi(tokens[2], &dimension) || dimension < 0 || dimension > 100000)
    return cut("a bad dimension");
  at = 3;
  auto read = [&](double* v) { return at < tokens.size() && absl::SimpleAtod(tokens[at++], v) && std::isfinite(*v); };
  auto read_all = [&](std::vector<double>* values, size_t n) {
    values->assign(n, 0);
    for (double& v : *values)
      if (!read(&v)) return false;
    return true;
  };
  if (!read(&p.count_) || !read_all(&p.mean_, dimension) || !read_all(&p.m2_, dimension))
    return cut("cut short in the feature statistics");
  for (int k = 0; k < kNumMutationKinds; ++k) {
    if (at >= tokens.size() || !absl::SimpleAtoi(tokens[at++], &p.seen_[k]) || p.seen_[k] < 0)
      return cut("a bad outcome count");
    const size_t width = dimension > 0 ? dimension + 1 : 0;
    if (!read_all(&p.weights_[k], width) || !read_all(&p.squared_gradients_[k], width))
      return cut("cut short in the weights");
  }
  if (at != tokens.size()) return cut("trailing values");
  return p;
}

}  // namespace tuneforge::search
