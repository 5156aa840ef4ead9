#include "search/sketch_rules/sketch_rules.h"

namespace tuneforge::search {

std::vector<std::unique_ptr<SketchRule>> DefaultCpuSketchRules() {
  // Order matters: inlining ends a stage's derivations; rfactor, cache
  // write and cache read add variants before the tiling rules end them;
  // skip is the fallback for stages no other rule claimed.
  std::vector<std::unique_ptr<SketchRule>> rules;
  rules.push_back(MakeAlwaysInlineRule());
  rules.push_back(MakeAddRfactorRule());
  rules.push_back(MakeAddCacheWriteRule());
  rules.push_back(MakeAddCacheReadRule());
  rules.push_back(MakeMultiLevelTilingWithFusionRule());
  rules.push_back(MakeMultiLevelTilingRule());
  rules.push_back(MakeSkipStageRule());
  return rules;
}

}  // namespace tuneforge::search
