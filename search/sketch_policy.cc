#include "search/sketch_policy.h"

#include <algorithm>
#include <chrono>

#include "absl/container/flat_hash_set.h"
#include "search/annotation/annotation.h"
#include "search/features/features.h"
#include "search/sketch_generation.h"

namespace tuneforge::search {
namespace {

class SketchPolicy : public SearchPolicy {
 public:
  SketchPolicy(te::ComputeDagPtr dag, const HardwareParams& hw, std::shared_ptr<SharedCostModel> model,
               uint64_t seed, const SketchPolicyOptions& options, SketchPolicyStats* stats)
      : dag_(std::move(dag)), hw_(hw), model_(std::move(model)), rng_(seed), options_(options),
        stats_(stats ? stats : &own_stats_) {}

  std::vector<std::vector<schedule::Step>> Propose(int n) override {
    auto start = std::chrono::steady_clock::now();
    const int64_t scored_before = stats_->evolution.scored;
    last_scored_ = 0;
    if (!EnsureSketches() || n <= 0) return {};
    std::vector<schedule::State> init = SampleInitPopulation(options_.init_population);
    std::vector<std::vector<schedule::Step>> out;
    absl::flat_hash_set<uint64_t> picked;
    auto take = [&](const schedule::State& s) {
      uint64_t h = s.Hash();
      if (static_cast<int>(out.size()) >= n || seen_.contains(h) || !picked.insert(h).second) return;
      out.push_back(s.steps());
    };
    if (model_->trained()) {
      std::vector<schedule::State> seeds = init;
      AddBestMeasured(&seeds);
      const int n_random = static_cast<int>(options_.eps_greedy * n + 0.5);
      std::vector<ScoredState> best = EvolutionarySearch(seeds, *model_, hw_, seen_, 2 * n,
                                                         options_.evolution, rng_(), &stats_->evolution);
      for (const ScoredState& s : best) {
        if (static_cast<int>(out.size()) >= n - n_random) break;
        take(s.state);
      }
    }
    std::shuffle(init.begin(), init.end(), rng_);  // eps-greedy (or all, before the model learns)
    for (const schedule::State& s : init) take(s);
    seen_.insert(picked.begin(), picked.end());
    stats_->last_round_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    last_scored_ = stats_->evolution.scored - scored_before;
    return out;
  }

  int64_t ProgramsScoredLastPropose() const override { return last_scored_; }

  void Update(const std::vector<MeasuredCandidate>& results) override {
    std::vector<schedule::State> states;
    std::vector<double> throughputs;
    for (const MeasuredCandidate& r : results) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(dag_, r.steps);
      if (!s.ok()) continue;
      seen_.insert(s->Hash());
      double throughput = r.ok && r.seconds > 0 ? dag_->flops() / r.seconds : 0;
      if (throughput > 0) measured_.push_back({*s, throughput});
      states.push_back(*std::move(s));
      throughputs.push_back(throughput);
    }
    std::vector<absl::StatusOr<ProgramFeatures>> features =
        ExtractFeaturesBatch(states, options_.evolution.threads);
    std::vector<MeasuredProgram> programs;
    for (size_t i = 0; i < states.size(); ++i)
      if (features[i].ok()) programs.push_back({*std::move(features[i]), throughputs[i]});
    (void)model_->AddMeasured(dag_->workload_key(), std::move(programs));  // a failed retraining keeps the old model
  }

  void MarkMeasured(const std::vector<std::vector<schedule::Step>>& schedules) override {
    for (const auto& steps : schedules)
      if (absl::StatusOr<schedule::State> s = schedule::State::Replay(dag_, steps); s.ok())
        seen_.insert(s->Hash());
  }

 private:
  bool EnsureSketches() {
    if (!sketches_.empty()) return true;
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(dag_, hw_);
    if (!sketches.ok()) return false;
    for (Sketch& s : *sketches) sketches_.push_back(std::move(s.state));
    stats_->num_sketches = static_cast<int>(sketches_.size());
    return true;
  }

  std::vector<schedule::State> SampleInitPopulation(int count) {
    std::vector<schedule::State> out;
    absl::flat_hash_set<uint64_t> hashes;
    for (int attempt = 0; static_cast<int>(out.size()) < count && attempt < 4 * count; ++attempt) {
      const schedule::State& sketch =
          sketches_[std::uniform_int_distribution<size_t>(0, sketches_.size() - 1)(rng_)];
      absl::StatusOr<schedule::State> s = SampleInitState(sketch, hw_, rng_);
      ++stats_->sampled;
      if (!s.ok()) {
        ++stats_->sample_failures;
        continue;
      }
      if (hashes.insert(s->Hash()).second) out.push_back(*std::move(s));
    }
    return out;
  }

  void AddBestMeasured(std::vector<schedule::State>* seeds) {
    std::sort(measured_.begin(), measured_.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    size_t count = static_cast<size_t>(options_.measured_share * options_.init_population);
    for (size_t i = 0; i < measured_.size() && i < count; ++i) seeds->push_back(measured_[i].first);
  }

  te::ComputeDagPtr dag_;
  HardwareParams hw_;
  std::shared_ptr<SharedCostModel> model_;
  Rng rng_;
  SketchPolicyOptions options_;
  SketchPolicyStats own_stats_;
  SketchPolicyStats* stats_;
  std::vector<schedule::State> sketches_;
  std::vector<std::pair<schedule::State, double>> measured_;  // ran correctly, with FLOP/s
  absl::flat_hash_set<uint64_t> seen_;                        // proposed or measured
  int64_t last_scored_ = 0;
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeSketchPolicy(te::ComputeDagPtr dag, const HardwareParams& hw,
                                               std::shared_ptr<SharedCostModel> model, uint64_t seed,
                                               const SketchPolicyOptions& options,
                                               SketchPolicyStats* stats) {
  return std::make_unique<SketchPolicy>(std::move(dag), hw, std::move(model), seed, options, stats);
}

}  // namespace tuneforge::search
