#include "tests/search/policy/policy_fixtures.h"

#include "search/cost_model/cost_model.h"

namespace tuneforge::search::testing {

HardwareParams OneCore() {
  HardwareParams hw;
  hw.num_cores = 1;
  hw.vector_lanes = 16;
  hw.vector_registers = 32;  // AVX-512's
  hw.auto_unroll_configs = {0, 16, 64};
  return hw;
}

std::shared_ptr<SharedCostModel> OneThreadXGBoost() {
  return std::make_shared<SharedCostModel>([] {
    XGBoostParams p;
    p.threads = 1;
    return MakeXGBoostModel(p);
  });
}

SketchPolicyOptions SmallAnsorOptions(int generations) {
  SketchPolicyOptions options;
  options.init_population = 64;
  options.evolution.population = 128;
  options.evolution.generations = generations;
  return options;
}

}  // namespace tuneforge::search::testing
