// Auto-unroll mutation: another auto_unroll_max_step for one stage.
#include "search/mutations/mutations.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> MutateAutoUnroll(const schedule::State& state, const HardwareParams& hw,
                                                 Rng& rng) {
  std::vector<size_t> pragmas = StepsOfKind<schedule::PragmaStep>(state);
  if (pragmas.empty() || hw.auto_unroll_configs.size() < 2)
    return absl::NotFoundError("no auto-unroll pragma to mutate");
  size_t index = pragmas[std::uniform_int_distribution<size_t>(0, pragmas.size() - 1)(rng)];
  schedule::PragmaStep pragma = std::get<schedule::PragmaStep>(state.steps()[index]);
  std::vector<int64_t> others;
  for (int64_t v : hw.auto_unroll_configs)
    if (v != pragma.auto_unroll_max_step) others.push_back(v);
  pragma.auto_unroll_max_step = others[std::uniform_int_distribution<size_t>(0, others.size() - 1)(rng)];
  return ReplaceStep(state, index, pragma);
}

}  // namespace tuneforge::search
