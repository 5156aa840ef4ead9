// A search policy proposes candidate schedules for one workload and learns
// from their measurements. The server runs one per (job, workload):
//
//   policy = MakePolicy(kind, dag, seed)
//   policy->MarkMeasured(schedules already in the record store)
//   policy->ContinueFrom(the fastest of them, with their timings)
//   loop: Propose(n) -> measure -> Update(results)
//
// Ansor's search (sketch_policy.h) is the default; Droplet search
// (droplet/droplet_policy.h) descends from its best program after its first
// trials; random search is the baseline.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/schedule/steps.h"
#include "common/te/compute_dag.h"
#include "search/mutation_choice/mutation_choice.h"
#include "search/search_task.h"
#include "search/shared_cost_model.h"
#include "search/sketch_selection/sketch_selection.h"

namespace tuneforge::search {

// Droplet search's Ansor phase by default (the Droplet paper's 300 trials).
inline constexpr int kDefaultDropletAfter = 300;

// The ansor policy's share of each trained round spent on the best measured
// program's neighbours (SketchPolicyOptions::best_neighbour_share, where the
// measurements behind it are); 0 is Ansor's search alone.
inline constexpr double kDefaultBestNeighbourShare = 0.125;

struct MeasuredCandidate {
  std::vector<schedule::Step> steps;
  bool ok = false;       // measured correctly
  double seconds = 0;    // median, when ok
  std::vector<double> repeat_seconds = {};  // per-run time of each timed repeat (droplet's significance test)
};

class SearchPolicy {
 public:
  virtual ~SearchPolicy() = default;
  // Up to n new candidates, none proposed or measured before; fewer when
  // the policy cannot find new ones.
  virtual std::vector<std::vector<schedule::Step>> Propose(int n) = 0;
  virtual void Update(const std::vector<MeasuredCandidate>& results) = 0;
  // Schedules measured before (a resumed job, another job on the same
  // workload): never proposed again.
  virtual void MarkMeasured(const std::vector<std::vector<schedule::Step>>& schedules) = 0;
  // The fastest correct programs earlier jobs measured on the workload
  // (marked measured too): the search goes on from them as from its own
  // best, as TVM's task scheduler does from a log file. Not learned again:
  // the target's shared cost model was trained on them already.
  virtual void ContinueFrom(const std::vector<MeasuredCandidate>& fastest_earlier) { (void)fastest_earlier; }
  // Programs the cost model scored in the last Propose (0: a policy
  // without a model).
  virtual int64_t ProgramsScoredLastPropose() const { return 0; }
};

enum class PolicyKind { kAnsor, kRandom, kDroplet };
// "ansor" (also ""), "random", "droplet". Errors list the known names.
absl::StatusOr<PolicyKind> ParsePolicy(const std::string& name);
const char* PolicyName(PolicyKind kind);

// What a policy is made from: the workload, the target, and (for ansor) the
// target's shared cost model.
struct PolicyContext {
  te::ComputeDagPtr dag;
  HardwareParams hw;
  // kAnsor's model, shared by the target's jobs; null: the policy trains one
  // of its own (XGBoost).
  std::shared_ptr<SharedCostModel> cost_model;
  uint64_t seed = 0;
  SketchSelection sketch_selection = SketchSelection::kUniform;  // kAnsor's (and kDroplet's Ansor phase)
  int droplet_after = kDefaultDropletAfter;  // kDroplet: trials of Ansor's search before the descent
  MutationChoice mutation_choice = MutationChoice::kFixed;  // kAnsor's (and kDroplet's Ansor phase)
  double best_neighbour_share = kDefaultBestNeighbourShare;  // kAnsor's (and kDroplet's Ansor phase), 0 to 1
};

std::unique_ptr<SearchPolicy> MakePolicy(PolicyKind kind, const PolicyContext& context);

}  // namespace tuneforge::search
