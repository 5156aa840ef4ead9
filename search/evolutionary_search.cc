#include "search/evolutionary_search.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "search/annotation/annotation.h"
#include "search/features/features.h"
#include "search/mutations/mutations.h"

namespace tuneforge::search {
namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int ThreadCount(int wanted) {
  if (wanted > 0) return wanted;
  return std::max(1u, std::thread::hardware_concurrency());
}

struct Breeder {
  const std::vector<schedule::State>* parents;
  const std::vector<double>* fitness;
  const HardwareParams* hw;
  const EvolutionOptions* options;
  // Learned mutation choice: per parent, the weights to draw its rule by
  // (empty: the fixed weights).
  const std::vector<std::array<double, kNumMutationKinds>>* choice;
};

struct Child {
  schedule::State state;
  int mutation = -1;  // -1: a crossover
  size_t parent = 0;  // index into the parents
};

struct Brood {
  std::vector<Child> children;
  std::vector<std::pair<size_t, int>> failed_mutations;  // (parent, rule) whose child did not replay
  int64_t mutations = 0, crossovers = 0, invalid = 0;
};

// `count` children of the scored parents: fitness-proportional picks, a
// crossover with probability crossover_ratio, else one mutation.
Brood Breed(const Breeder& b, int count, uint64_t seed) {
  Rng rng(seed);
  std::discrete_distribution<size_t> pick(b.fitness->begin(), b.fitness->end());
  std::vector<double> weights = b.options->mutation_weights;
  if (b.hw->gpu && weights.size() == kNumMutationKinds) {  // Mutate refuses these on a GPU
    weights[static_cast<int>(MutationKind::kParallel)] = 0;
    weights[static_cast<int>(MutationKind::kComputeLocation)] = 0;
  }
  std::discrete_distribution<int> fixed_kind(weights.begin(), weights.end());
  std::uniform_real_distribution<double> unit(0, 1);
  Brood brood;
  for (int attempt = 0; static_cast<int>(brood.children.size()) < count && attempt < 4 * count; ++attempt) {
    const size_t p = pick(rng);
    const schedule::State& parent = (*b.parents)[p];
    absl::StatusOr<schedule::State> child = absl::UnknownError("");
    int mutation = -1;
    if (unit(rng) < b.options->crossover_ratio) {
      const schedule::State& other = (*b.parents)[pick(rng)];
      // Ansor weighs stages by their predicted scores; a fair coin per stage
      // keeps the two parents' shares even here.
      Rng coin(rng());
      child = Crossover(parent, other, [&coin](int) { return (coin() & 1) != 0; });
      ++brood.crossovers;
    } else {
      if (b.choice->empty()) {
        mutation = fixed_kind(rng);
      } else {
        const std::array<double, kNumMutationKinds>& w = (*b.choice)[p];
        mutation = std::discrete_distribution<int>(w.begin(), w.end())(rng);
      }
      child = Mutate(static_cast<MutationKind>(mutation), parent, *b.hw, rng);
      ++brood.mutations;
    }
    // A tile size moved on a GPU may ask for more threads or shared memory
    // than a block has, on a CPU for more accumulators than the register
    // file holds (register_tile.cc): never scored, never measured.
    if (child.ok() && b.hw->gpu && !WithinGpuLimits(*child, *b.hw))
      child = absl::OutOfRangeError("over the GPU's block limits");
    if (child.ok() && !WithinRegisterFile(*child, *b.hw))
      child = absl::OutOfRangeError("more accumulators than vector registers");
    if (!child.ok()) {
      ++brood.invalid;
      if (mutation >= 0) brood.failed_mutations.emplace_back(p, mutation);
      continue;
    }
    brood.children.push_back({*std::move(child), mutation, p});
  }
  return brood;
}

// Where a program of the population came from.
struct Lineage {
  int mutation = -1;
  uint64_t parent = 0;
};

}  // namespace

std::vector<ScoredState> EvolutionarySearch(const std::vector<schedule::State>& init,
                                            const SharedCostModel& model, const HardwareParams& hw,
                                            const absl::flat_hash_set<uint64_t>& exclude, int out_size,
                                            const EvolutionOptions& options, uint64_t seed,
                                            EvolutionStats* stats, std::vector<MutationOutcome>* outcomes) {
  const int threads = ThreadCount(options.threads);
  const MutationPredictor* predictor = options.mutation_predictor;
  Rng rng(seed);
  absl::flat_hash_map<uint64_t, ScoredState> best;  // every unmeasured program scored
  std::vector<schedule::State> population;
  absl::flat_hash_set<uint64_t> in_population;
  for (const schedule::State& s : init)
    if (in_population.insert(s.Hash()).second) population.push_back(s);

  // Scores of every program met in this search: one met again (mutations
  // often undo each other) is not lowered and scored again.
  absl::flat_hash_map<uint64_t, float> known;
  absl::flat_hash_set<uint64_t> known_invalid;
  // Learned mutation choice only: each scored program's feature summary,
  // and where the last brood's children came from.
  absl::flat_hash_map<uint64_t, std::vector<float>> summaries;
  absl::flat_hash_map<uint64_t, Lineage> lineage;
  auto outcome = [&](const Lineage& from, bool improved) {
    auto parent = summaries.find(from.parent);
    if (outcomes && parent != summaries.end())
      outcomes->push_back({parent->second, static_cast<MutationKind>(from.mutation), improved});
  };
  for (int gen = 0; gen <= options.generations && !population.empty(); ++gen) {
    std::vector<schedule::State> fresh;
    std::vector<schedule::State> valid;
    std::vector<float> scores;
    for (schedule::State& s : population) {
      if (known_invalid.contains(s.Hash())) continue;
      if (auto it = known.find(s.Hash()); it != known.end()) {
        scores.push_back(it->second);
        valid.push_back(std::move(s));
        ++stats->reused;
      } else {
        fresh.push_back(std::move(s));
      }
    }
    Clock::time_point t = Clock::now();
    std::vector<absl::StatusOr<ProgramFeatures>> features = ExtractFeaturesBatch(fresh, threads);
    stats->feature_seconds += Since(t);
    std::vector<const ProgramFeatures*> programs;
    const size_t first_fresh = valid.size();
    for (size_t i = 0; i < fresh.size(); ++i) {
      if (!features[i].ok()) {
        ++stats->invalid;
        known_invalid.insert(fresh[i].Hash());
        if (auto from = lineage.find(fresh[i].Hash()); from != lineage.end() && from->second.mutation >= 0)
          outcome(from->second, false);
        continue;
      }
      if (predictor) summaries.emplace(fresh[i].Hash(), FeatureSummary(*features[i]));
      valid.push_back(std::move(fresh[i]));
      programs.push_back(&*features[i]);
    }
    t = Clock::now();
    std::vector<float> fresh_scores = model.Predict(programs);
    stats->predict_seconds += Since(t);
    stats->scored += static_cast<int64_t>(programs.size());
    scores.insert(scores.end(), fresh_scores.begin(), fresh_scores.end());
    for (size_t i = first_fresh; i < valid.size(); ++i) known.emplace(valid[i].Hash(), scores[i]);
    for (size_t i = 0; i < valid.size(); ++i) {
      const uint64_t h = valid[i].Hash();
      const auto from = lineage.find(h);
      if (predictor && from != lineage.end() && from->second.mutation >= 0)
        if (auto parent_score = known.find(from->second.parent); parent_score != known.end())
          outcome(from->second, scores[i] > parent_score->second);
      if (exclude.contains(h) || best.contains(h)) continue;
      ScoredState scored{valid[i], scores[i]};
      if (from != lineage.end()) {
        scored.mutation = from->second.mutation;
        scored.parent_hash = from->second.parent;
      }
      best.emplace(h, std::move(scored));
    }
    if (gen == options.generations || valid.empty()) break;

    t = Clock::now();
    std::vector<double> fitness(valid.size());
    for (size_t i = 0; i < valid.size(); ++i) fitness[i] = std::max<double>(scores[i], 0) + 1e-6;
    std::vector<std::array<double, kNumMutationKinds>> choice;
    if (predictor) {
      choice.reserve(valid.size());
      for (const schedule::State& parent : valid)
        choice.push_back(predictor->ChoiceWeights(summaries[parent.Hash()], options.mutation_weights));
    }
    Breeder breeder{&valid, &fitness, &hw, &options, &choice};
    std::vector<Brood> broods(threads);
    std::vector<std::thread> workers;
    const int per_thread = (options.population + threads - 1) / threads;
    for (int k = 0; k < threads; ++k) {
      uint64_t thread_seed = rng();
      workers.emplace_back([&, k, thread_seed] { broods[k] = Breed(breeder, per_thread, thread_seed); });
    }
    for (std::thread& w : workers) w.join();
    population.clear();
    in_population.clear();
    lineage.clear();
    for (Brood& brood : broods) {
      stats->mutations += brood.mutations;
      stats->crossovers += brood.crossovers;
      stats->invalid += brood.invalid;
      if (predictor)
        for (auto [parent, mutation] : brood.failed_mutations) outcome({mutation, valid[parent].Hash()}, false);
      for (Child& c : brood.children) {
        const uint64_t h = c.state.Hash();
        if (!in_population.insert(h).second) continue;
        if (predictor) lineage.emplace(h, Lineage{c.mutation, valid[c.parent].Hash()});
        population.push_back(std::move(c.state));
      }
    }
    stats->breed_seconds += Since(t);
  }

  std::vector<ScoredState> out;
  out.reserve(best.size());
  for (auto& [h, s] : best) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(), [](const ScoredState& a, const ScoredState& b) {
    return a.score > b.score;
  });
  if (static_cast<int>(out.size()) > out_size) out.erase(out.begin() + out_size, out.end());
  for (ScoredState& s : out)
    if (auto parent = summaries.find(s.parent_hash); s.mutation >= 0 && parent != summaries.end())
      s.parent_summary = parent->second;
  return out;
}

}  // namespace tuneforge::search
