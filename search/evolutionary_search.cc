#include "search/evolutionary_search.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/container/flat_hash_map.h"
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
};

// `count` children of the scored parents: fitness-proportional picks, a
// crossover with probability crossover_ratio, else one mutation.
std::vector<schedule::State> Breed(const Breeder& b, int count, uint64_t seed, int64_t* mutations,
                                   int64_t* crossovers, int64_t* invalid) {
  Rng rng(seed);
  std::discrete_distribution<size_t> pick(b.fitness->begin(), b.fitness->end());
  std::discrete_distribution<int> kind(b.options->mutation_weights.begin(),
                                       b.options->mutation_weights.end());
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<schedule::State> out;
  for (int attempt = 0; static_cast<int>(out.size()) < count && attempt < 4 * count; ++attempt) {
    const schedule::State& parent = (*b.parents)[pick(rng)];
    absl::StatusOr<schedule::State> child = absl::UnknownError("");
    if (unit(rng) < b.options->crossover_ratio) {
      const schedule::State& other = (*b.parents)[pick(rng)];
      // Ansor weighs stages by their predicted scores; a fair coin per stage
      // keeps the two parents' shares even here.
      Rng coin(rng());
      child = Crossover(parent, other, [&coin](int) { return (coin() & 1) != 0; });
      ++*crossovers;
    } else {
      child = Mutate(static_cast<MutationKind>(kind(rng)), parent, *b.hw, rng);
      ++*mutations;
    }
    if (!child.ok()) {
      ++*invalid;
      continue;
    }
    out.push_back(*std::move(child));
  }
  return out;
}

}  // namespace

std::vector<ScoredState> EvolutionarySearch(const std::vector<schedule::State>& init,
                                            const SharedCostModel& model, const HardwareParams& hw,
                                            const absl::flat_hash_set<uint64_t>& exclude, int out_size,
                                            const EvolutionOptions& options, uint64_t seed,
                                            EvolutionStats* stats) {
  const int threads = ThreadCount(options.threads);
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
        continue;
      }
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
      uint64_t h = valid[i].Hash();
      if (exclude.contains(h) || best.contains(h)) continue;
      best.emplace(h, ScoredState{valid[i], scores[i]});
    }
    if (gen == options.generations || valid.empty()) break;

    t = Clock::now();
    std::vector<double> fitness(valid.size());
    for (size_t i = 0; i < valid.size(); ++i) fitness[i] = std::max<double>(scores[i], 0) + 1e-6;
    Breeder breeder{&valid, &fitness, &hw, &options};
    std::vector<std::vector<schedule::State>> parts(threads);
    std::vector<int64_t> mutations(threads), crossovers(threads), invalid(threads);
    std::vector<std::thread> workers;
    const int per_thread = (options.population + threads - 1) / threads;
    for (int k = 0; k < threads; ++k) {
      uint64_t thread_seed = rng();
      workers.emplace_back([&, k, thread_seed] {
        parts[k] = Breed(breeder, per_thread, thread_seed, &mutations[k], &crossovers[k], &invalid[k]);
      });
    }
    for (std::thread& w : workers) w.join();
    population.clear();
    in_population.clear();
    for (int k = 0; k < threads; ++k) {
      stats->mutations += mutations[k];
      stats->crossovers += crossovers[k];
      stats->invalid += invalid[k];
      for (schedule::State& s : parts[k])
        if (in_population.insert(s.Hash()).second) population.push_back(std::move(s));
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
  return out;
}

}  // namespace tuneforge::search
