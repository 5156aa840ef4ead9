// What the learned search options have learned on one target, kept beside
// its shared cost model (shared_cost_model.h) and saved with it in the
// record store, so a restarted server goes on from it:
//   - the mutation predictor (learned mutation choice), one per target;
//   - the sketch bandit of each workload (learned sketch selection): which
//     sketches are still in the contest and their quota, so a resumed or
//     later job on the workload does not pay for the contest again.
// Thread-safe: jobs of the target read and update it concurrently.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "search/mutation_choice/mutation_predictor.h"
#include "search/sketch_selection/sketch_bandit.h"

namespace tuneforge::search {

class LearnedSearchState {
 public:
  // A copy to breed with while the shared one goes on learning.
  MutationPredictor mutation_predictor() const;
  void LearnMutations(const std::vector<MutationOutcome>& outcomes);

  // The workload's bandit as last saved; nullopt when none was.
  std::optional<SketchBandit> bandit(const std::string& workload_key) const;
  void SaveBandit(const std::string& workload_key, const SketchBandit& bandit);

  // Nothing learned yet (nothing worth saving).
  bool empty() const;
  // Text lines: a header, the predictor, one line per workload's bandit.
  std::string Serialize() const;
  // Replaces the state with saved bytes. DATA_LOSS (and the state unchanged)
  // when they are not a saved state of this format.
  absl::Status Load(absl::string_view bytes);

 private:
  mutable std::mutex mu_;
  MutationPredictor predictor_;
  absl::flat_hash_map<std::string, SketchBandit> bandits_;
};

}  // namespace tuneforge::search
