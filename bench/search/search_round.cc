#include "bench/search/search_round.h"

#include <cstdio>
#include <iostream>
#include <random>

#include "common/te/workload.h"
#include "nlohmann/json.hpp"
#include "search/sketch_policy.h"

namespace tuneforge::bench {

int RunSearchRoundBench(const std::string& workload, bool json, int threads) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(workload);
  if (!w.ok()) {
    std::fprintf(stderr, "--round-workload: %s\n", std::string(w.status().message()).c_str());
    return 2;
  }
  search::HardwareParams hw;
  hw.num_cores = threads;
  hw.vector_lanes = 16;
  hw.vector_registers = 32;  // AVX-512's, like the lanes
  auto model = std::make_shared<search::SharedCostModel>([] {
    search::XGBoostParams p;
    p.threads = 1;
    return search::MakeXGBoostModel(p);
  });
  search::SketchPolicyOptions options;  // population 2048, 4 generations
  options.evolution.threads = threads;
  search::SketchPolicyStats stats;
  std::unique_ptr<search::SearchPolicy> policy = search::MakeSketchPolicy(w->dag, hw, model, 1, options, &stats);
  // Round 1 (random picks) and made-up times for them: the model is then
  // trained on 64 programs with labels that vary as much as real ones, so
  // its trees are as deep as in a real search.
  std::vector<std::vector<schedule::Step>> first = policy->Propose(64);
  std::mt19937_64 rng(3);
  std::vector<search::MeasuredCandidate> results;
  for (auto& steps : first) results.push_back({steps, true, std::uniform_real_distribution<double>(0.005, 0.2)(rng)});
  policy->Update(results);
  std::vector<double> rounds;
  for (int r = 0; r < 3; ++r) {
    search::SketchPolicyStats before = stats;
    policy->Propose(64);
    rounds.push_back(stats.last_round_seconds);
    (void)before;
  }
  std::sort(rounds.begin(), rounds.end());
  const search::EvolutionStats& e = stats.evolution;
  double per_round = rounds[1];
  if (json) {
    std::cout << nlohmann::ordered_json{{"search_round_seconds_median", per_round},
                                        {"programs_scored", e.scored},
                                        {"programs_reused", e.reused},
                                        {"feature_seconds", e.feature_seconds},
                                        {"predict_seconds", e.predict_seconds},
                                        {"breed_seconds", e.breed_seconds},
                                        {"threads", threads}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::printf("search side of one round (%s, population %d x %d generations, 64 picked, %d threads):\n", workload.c_str(),
              options.evolution.population, options.evolution.generations, threads);
  std::printf("  median of 3 rounds: %.2f s (target <= 1 s)\n", per_round);
  std::printf("  over the 3 rounds: %lld programs scored, %lld met again (score reused); features %.2f s, XGBoost predict %.2f s, "
              "mutation/crossover %.2f s; %lld invalid children\n",
              static_cast<long long>(e.scored), static_cast<long long>(e.reused), e.feature_seconds, e.predict_seconds, e.breed_seconds,
              static_cast<long long>(e.invalid));
  return 0;
}

}  // namespace tuneforge::bench
