#include "search/sketch_rules/sketch_rules.h"

namespace tuneforge::search {

std::vector<std::unique_ptr<SketchRule>> DefaultCpuSketchRules() {
  // Order matters: inlining ends a stage's derivations; rfactor, cache
  // write and cache read add variants before the tiling rules end them;
  // skip is the fallback for stages no other rule claimed.
  std::vector<std::unique_ptr<SketchRule>> rules;
  rules.push_back(MakeSpecialComputeLocationRule());
  rules.push_back(MakeAlwaysInlineRule());
  rules.push_back(MakePrecomputedConstantRule());
  rules.push_back(MakeTransformAtConsumerRule());
  rules.push_back(MakeSimplifyConstTensorRule());
  rules.push_back(MakeAddRfactorRule());
  rules.push_back(MakeAddCacheWriteRule());
  rules.push_back(MakeAddCacheReadRule());
  rules.push_back(MakeMultiLevelTilingWithFusionRule());
  rules.push_back(MakeMultiLevelTilingRule());
  rules.push_back(MakeSkipStageRule());
  return rules;
}

std::vector<std::unique_ptr<SketchRule>> DefaultGpuSketchRules() {
  // Shared cache reads come first: a padding stage gets its copy before
  // always-inline inlines it (into the copy, where the fetch reads the
  // input directly). SSSRRSRS's five spatial levels: block, vthread, thread
  // (bound by annotation), then two register levels.
  std::vector<std::unique_ptr<SketchRule>> rules;
  rules.push_back(MakeAddSharedCacheReadRule());
  rules.push_back(MakeSpecialComputeLocationRule());
  rules.push_back(MakeAlwaysInlineRule());
  rules.push_back(MakeSimplifyConstTensorRule());
  rules.push_back(MakeCrossThreadReductionRule());
  rules.push_back(MakeAddCacheWriteRule(/*always=*/true));
  rules.push_back(MakeMultiLevelTilingWithFusionRule("SSSRRSRS", {3}, /*weight_vector_variants=*/false));
  rules.push_back(MakeMultiLevelTilingRule("SSSRRSRS"));
  rules.push_back(MakeSkipStageRule());
  return rules;
}

}  // namespace tuneforge::search
