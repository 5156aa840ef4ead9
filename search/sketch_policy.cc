#include "search/sketch_policy.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "search/annotation/annotation.h"
#include "search/droplet/neighbours.h"
#include "search/features/features.h"
#include "search/sketch_generation.h"
#include "search/sketch_selection/sketch_bandit.h"
#include "search/sketch_selection/sketch_of.h"
#include "search/tile_families.h"

namespace tuneforge::search {
namespace {

class SketchPolicy : public SearchPolicy {
 public:
  SketchPolicy(te::ComputeDagPtr dag, const HardwareParams& hw, std::shared_ptr<SharedCostModel> model,
               uint64_t seed, const SketchPolicyOptions& options, SketchPolicyStats* stats,
               std::shared_ptr<LoweredPrograms> programs)
      : dag_(std::move(dag)), hw_(hw), model_(std::move(model)), rng_(seed), options_(options),
        stats_(stats ? stats : &own_stats_),
        programs_(programs ? std::move(programs)
                           : std::make_shared<LoweredPrograms>(hw.gpu, /*skip_scattering=*/true)) {}

  std::vector<std::vector<schedule::Step>> Propose(int n) override {
    auto start = std::chrono::steady_clock::now();
    const int64_t scored_before = stats_->evolution.scored;
    last_scored_ = 0;
    if (!EnsureSketches() || n <= 0) return {};
    // Learned sketch selection samples each sketch's seeds itself; the
    // round's common samples then only serve eps-greedy and fill shortfalls.
    const bool by_sketch = model_->trained() && options_.sketch_selection == SketchSelection::kLearned;
    std::vector<schedule::State> init =
        SampleInitPopulation(by_sketch ? std::min(options_.init_population, 2 * n) : options_.init_population);
    std::vector<std::vector<schedule::Step>> out;
    absl::flat_hash_set<uint64_t> picked;
    Take take = [&](const schedule::State& s) {
      uint64_t h = s.Hash();
      if (static_cast<int>(out.size()) >= n || seen_.contains(h) || !picked.insert(h).second) return false;
      // Other steps for code proposed before: measuring it again teaches
      // nothing (its steps stay in `picked`, so later rounds skip them).
      if (!programs_->Add(s)) return false;
      out.push_back(s.steps());
      return true;
    };
    size_t neighbours = 0;
    if (model_->trained()) {
      const int n_random = static_cast<int>(options_.eps_greedy * n + 0.5);
      ProposeNeighboursOfBest(static_cast<int>(options_.best_neighbour_share * n + 0.5), take);
      neighbours = out.size();
      const int n_evolved = std::max(0, n - n_random - static_cast<int>(neighbours));
      if (by_sketch)
        ProposeBySketch(n_evolved, take);
      else
        ProposeEvolved(init, n_evolved, take);
    }
    const size_t evolved = out.size() - neighbours;
    std::shuffle(init.begin(), init.end(), rng_);  // eps-greedy (or all, before the model learns)
    for (const schedule::State& s : init) take(s);
    stats_->neighbour_picks += static_cast<int64_t>(neighbours);
    stats_->evolved_picks += static_cast<int64_t>(evolved);
    stats_->sampled_picks += static_cast<int64_t>(out.size() - evolved - neighbours);
    seen_.insert(picked.begin(), picked.end());
    stats_->lowered_copies = programs_->copies();
    stats_->scattering_skipped = programs_->scattering();
    stats_->last_round_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    last_scored_ = stats_->evolution.scored - scored_before;
    return out;
  }

  int64_t ProgramsScoredLastPropose() const override { return last_scored_; }

  void Update(const std::vector<MeasuredCandidate>& results) override {
    EnsureSketches();
    std::vector<schedule::State> states;
    std::vector<double> throughputs;
    const bool learn_mutations = options_.mutation_choice == MutationChoice::kLearned;
    for (const MeasuredCandidate& r : results) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(dag_, r.steps);
      if (!s.ok()) continue;
      seen_.insert(s->Hash());
      double throughput = r.ok && r.seconds > 0 ? dag_->flops() / r.seconds : 0;
      if (learn_mutations) throughput_of_[s->Hash()] = throughput;
      const int sketch = SketchIndexOf(r.steps, sketches_);
      if (sketch >= 0) {
        bandit_.Record(sketch, throughput);
        ++stats_->measured_per_sketch[sketch];
      }
      if (throughput > 0) measured_.push_back({*s, throughput, sketch});
      states.push_back(*std::move(s));
      throughputs.push_back(throughput);
    }
    if (learn_mutations) LearnFromMeasuredChildren(states);
    if (options_.sketch_selection == SketchSelection::kLearned)
      model_->learned().SaveBandit(dag_->workload_key(), bandit_);
    std::vector<absl::StatusOr<ProgramFeatures>> features =
        ExtractFeaturesBatch(states, options_.evolution.threads);
    std::vector<MeasuredProgram> programs;
    for (size_t i = 0; i < states.size(); ++i)
      if (features[i].ok()) programs.push_back({*std::move(features[i]), throughputs[i]});
    (void)model_->AddMeasured(dag_->workload_key(), std::move(programs));  // a failed retraining keeps the old model
  }

  void MarkMeasured(const std::vector<std::vector<schedule::Step>>& schedules) override {
    for (const auto& steps : schedules) seen_.insert(schedule::HashSteps(steps));
    programs_->AddMeasured(dag_, schedules, options_.evolution.threads);
  }

  // Earlier jobs' fastest programs seed the evolution (AddBestMeasured)
  // and the neighbours of the best, as this policy's own measured ones do.
  void ContinueFrom(const std::vector<MeasuredCandidate>& fastest_earlier) override {
    EnsureSketches();
    for (const MeasuredCandidate& r : fastest_earlier) {
      if (!r.ok || r.seconds <= 0) continue;
      absl::StatusOr<schedule::State> s = schedule::State::Replay(dag_, r.steps);
      if (!s.ok()) continue;
      seen_.insert(s->Hash());
      measured_.push_back({*s, dag_->flops() / r.seconds, SketchIndexOf(r.steps, sketches_)});
    }
  }

 private:
  using Take = std::function<bool(const schedule::State&)>;

  // Up to `want` neighbours of the best measured program never proposed:
  // the nearest steps out first, one knob moved before several, each
  // group the model's best first. Copies of code proposed before are
  // passed over (take refuses them), so a step whose moves all lower alike
  // gives way to the next.
  void ProposeNeighboursOfBest(int want, const Take& take) {
    if (want <= 0 || measured_.empty()) return;
    const Measured& best = *std::max_element(measured_.begin(), measured_.end(), [](const Measured& a,
                                                                                     const Measured& b) {
      return a.throughput < b.throughput;
    });
    const ProgramSpace space = ProgramSpace::Of(best.state, hw_);
    const SpacePoint origin = space.Origin();
    int taken = 0;
    for (int step = 1; step < std::min(space.widest(), kNeighbourSteps + 1) && taken < want; ++step) {
      NeighbourPrograms fresh = FreshNeighbours(space, origin, step, kNeighbourLimit, hw_, seen_, rng_);
      for (std::vector<schedule::State>* group : {&fresh.single, &fresh.several})
        for (const schedule::State& s : RankByModel(std::move(*group), *model_))
          if (taken < want && take(s)) ++taken;
    }
  }

  // Ansor's: one evolution from the round's samples and the best measured.
  void ProposeEvolved(const std::vector<schedule::State>& init, int want, const Take& take) {
    std::vector<schedule::State> seeds = init;
    AddBestMeasured(-1, options_.init_population, &seeds);
    TakeRanked(Evolve(seeds, kEvolvedPerSlot * want, options_.evolution), want, take);
  }

  // Takes up to `want` of `ranked`, best first, at most the quota of each
  // tile family unless the batch would fall short (tile_families.h). The
  // copies check lowers each one; that is done ahead, a stretch at a time,
  // on the evolution's threads (one after another it cost up to 0.024 s a
  // trial).
  int TakeRanked(const std::vector<ScoredState>& ranked, int want, const Take& take) {
    return TakeRankedWithQuota(
        ranked.size(), want, options_.max_family_share,
        [&](size_t i) { return TileFamilyOf(ranked[i].state.steps()); },
        [&](size_t i) { return TakeEvolved(ranked[i], take); },
        [&](size_t begin, size_t end) {
          std::vector<const schedule::State*> batch;
          for (size_t i = begin; i < end; ++i) batch.push_back(&ranked[i].state);
          programs_->Prepare(batch, options_.evolution.threads);
        });
  }

  // One evolutionary search; with learned mutation choice it breeds by the
  // target's predictor and teaches it what the rules did.
  std::vector<ScoredState> Evolve(const std::vector<schedule::State>& seeds, int out_size,
                                  EvolutionOptions evolution) {
    if (options_.mutation_choice != MutationChoice::kLearned)
      return EvolutionarySearch(seeds, *model_, hw_, seen_, out_size, evolution, rng_(), &stats_->evolution);
    const MutationPredictor predictor = model_->learned().mutation_predictor();
    evolution.mutation_predictor = &predictor;
    std::vector<MutationOutcome> outcomes;
    std::vector<ScoredState> best =
        EvolutionarySearch(seeds, *model_, hw_, seen_, out_size, evolution, rng_(), &stats_->evolution, &outcomes);
    stats_->scored_mutation_outcomes += static_cast<int64_t>(outcomes.size());
    model_->learned().LearnMutations(outcomes);
    return best;
  }

  // Takes an evolved program; a mutation's child remembers its parent so
  // its measurement can teach the predictor.
  bool TakeEvolved(const ScoredState& s, const Take& take) {
    if (!take(s.state)) return false;
    if (s.mutation >= 0 && options_.mutation_choice == MutationChoice::kLearned)
      lineage_[s.state.Hash()] = {s.parent_hash, static_cast<MutationKind>(s.mutation), s.parent_summary};
    return true;
  }

  // Children measured now whose parents were measured: did the rule pay?
  void LearnFromMeasuredChildren(const std::vector<schedule::State>& measured) {
    std::vector<MutationOutcome> outcomes;
    for (const schedule::State& child : measured) {
      auto from = lineage_.find(child.Hash());
      if (from == lineage_.end()) continue;
      auto parent = throughput_of_.find(from->second.parent_hash);
      auto self = throughput_of_.find(child.Hash());
      if (parent != throughput_of_.end() && self != throughput_of_.end())
        outcomes.push_back({from->second.parent_summary, from->second.mutation, self->second > parent->second,
                            kMeasuredOutcomeWeight});
      lineage_.erase(from);
    }
    stats_->measured_mutation_outcomes += static_cast<int64_t>(outcomes.size());
    model_->learned().LearnMutations(outcomes);
  }

  // Learned sketch selection: the bandit shares `want` among the sketches;
  // each share is the best of an evolution of that sketch alone, its
  // population in proportion to the share.
  void ProposeBySketch(int want, const Take& take) {
    if (want <= 0) return;
    std::vector<int> slots = bandit_.Allocate(want);
    for (size_t sketch = 0; sketch < slots.size(); ++sketch) {
      if (slots[sketch] == 0) continue;
      const double share = static_cast<double>(slots[sketch]) / want;
      const int samples = std::max(kMinSamplesPerSketch, static_cast<int>(options_.init_population * share));
      std::vector<schedule::State> seeds = SampleInitPopulation(samples, static_cast<int>(sketch));
      if (seeds.empty() && bandit_.measured(static_cast<int>(sketch)) == 0) {
        bandit_.Exclude(static_cast<int>(sketch));  // never produces a program
        continue;
      }
      AddBestMeasured(static_cast<int>(sketch), samples, &seeds);
      EvolutionOptions evolution = options_.evolution;
      evolution.population =
          std::max(kMinPopulationPerSketch, static_cast<int>(options_.evolution.population * share));
      std::vector<ScoredState> best = Evolve(seeds, kEvolvedPerSlot * slots[sketch], evolution);
      ++stats_->searches_per_sketch[sketch];
      const int taken = TakeRanked(best, slots[sketch], take);
      if (taken == 0) bandit_.Exclude(static_cast<int>(sketch));  // nothing new left in it
      bandit_.Unused(static_cast<int>(sketch), slots[sketch] - taken);
    }
  }

  bool EnsureSketches() {
    if (!sketches_.empty()) return true;
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateDefaultSketches(dag_, hw_);
    if (!sketches.ok()) return false;
    for (Sketch& s : *sketches) sketches_.push_back(std::move(s.state));
    stats_->num_sketches = static_cast<int>(sketches_.size());
    stats_->measured_per_sketch.assign(sketches_.size(), 0);
    stats_->searches_per_sketch.assign(sketches_.size(), 0);
    bandit_ = SketchBandit(static_cast<int>(sketches_.size()));
    // A contest of this workload run before on the target (an earlier job,
    // or this one before a restart) goes on where it stopped.
    if (options_.sketch_selection == SketchSelection::kLearned)
      if (std::optional<SketchBandit> saved = model_->learned().bandit(dag_->workload_key());
          saved && saved->num_sketches() == static_cast<int>(sketches_.size()))
        bandit_ = *std::move(saved);
    return true;
  }

  // `count` distinct annotated samples: of every sketch alike, or of
  // `only_sketch` when it is >= 0.
  std::vector<schedule::State> SampleInitPopulation(int count, int only_sketch = -1) {
    std::vector<schedule::State> out;
    absl::flat_hash_set<uint64_t> hashes;
    for (int attempt = 0; static_cast<int>(out.size()) < count && attempt < 4 * count; ++attempt) {
      const schedule::State& sketch =
          only_sketch >= 0 ? sketches_[only_sketch]
                           : sketches_[std::uniform_int_distribution<size_t>(0, sketches_.size() - 1)(rng_)];
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

  // The best measured programs (of `sketch`, or of all when it is -1) as
  // seeds: measured_share of a population of `population`.
  void AddBestMeasured(int sketch, int population, std::vector<schedule::State>* seeds) {
    std::sort(measured_.begin(), measured_.end(),
              [](const Measured& a, const Measured& b) { return a.throughput > b.throughput; });
    size_t count = static_cast<size_t>(options_.measured_share * population);
    for (size_t i = 0, added = 0; i < measured_.size() && added < count; ++i) {
      if (sketch >= 0 && measured_[i].sketch != sketch) continue;
      seeds->push_back(measured_[i].state);
      ++added;
    }
  }

  // Programs an evolution returns per batch slot, best first: most of the
  // best-ranked are copies of one program under other steps (the model
  // scores them alike), skipped as they are taken. Once a tuning has
  // converged, nine in ten are: at 8 per slot a 7x7 stem tuning's rounds
  // after its 600th trial took 21-52 of their 61 evolved picks and filled
  // the rest with random samples, mostly under half the best speed and
  // slower to compile. Telling a copy costs a twentieth of a lowering, and
  // the ranking is lowered a stretch at a time only as far as it is taken
  // (0.02-0.1 s a round of that tuning at 64), so the list goes deep.
  static constexpr int kEvolvedPerSlot = 64;
  // The neighbours of the best generated per step (Droplet's descent, which
  // fills whole rounds with them, takes 512), and the steps out a round
  // looks before it leaves the rest of the share to the evolution.
  static constexpr int kNeighbourLimit = 128;
  static constexpr int kNeighbourSteps = 4;
  // An evolution over fewer programs than this finds little.
  static constexpr int kMinSamplesPerSketch = 64;
  static constexpr int kMinPopulationPerSketch = 256;
  // A measured outcome is worth this many scored ones: it is the truth the
  // cost model only estimates.
  static constexpr float kMeasuredOutcomeWeight = 4;

  // A proposed mutation's child: its parent and the rule.
  struct Lineage {
    uint64_t parent_hash = 0;
    MutationKind mutation = MutationKind::kTileSize;
    std::vector<float> parent_summary;
  };

  struct Measured {
    schedule::State state;
    double throughput = 0;  // FLOP/s, > 0: ran correctly
    int sketch = -1;
  };

  te::ComputeDagPtr dag_;
  HardwareParams hw_;
  std::shared_ptr<SharedCostModel> model_;
  Rng rng_;
  SketchPolicyOptions options_;
  SketchPolicyStats own_stats_;
  SketchPolicyStats* stats_;
  std::vector<schedule::State> sketches_;
  std::vector<Measured> measured_;  // ran correctly
  SketchBandit bandit_{0};
  absl::flat_hash_set<uint64_t> seen_;                        // proposed or measured
  std::shared_ptr<LoweredPrograms> programs_;                 // their code (shared with droplet's descent)
  // Learned mutation choice: proposed children awaiting measurement, and
  // the throughput of every program measured (0: failed).
  absl::flat_hash_map<uint64_t, Lineage> lineage_;
  absl::flat_hash_map<uint64_t, double> throughput_of_;
  int64_t last_scored_ = 0;
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeSketchPolicy(te::ComputeDagPtr dag, const HardwareParams& hw,
                                               std::shared_ptr<SharedCostModel> model, uint64_t seed,
                                               const SketchPolicyOptions& options,
                                               SketchPolicyStats* stats,
                                               std::shared_ptr<LoweredPrograms> programs) {
  return std::make_unique<SketchPolicy>(std::move(dag), hw, std::move(model), seed, options, stats,
                                        std::move(programs));
}

}  // namespace tuneforge::search
