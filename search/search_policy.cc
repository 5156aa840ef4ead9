#include "search/search_policy.h"

#include "absl/strings/str_cat.h"
#include "search/cost_model/cost_model.h"
#include "search/random_search.h"
#include "search/sketch_policy.h"

namespace tuneforge::search {

absl::StatusOr<PolicyKind> ParsePolicy(const std::string& name) {
  if (name.empty() || name == "ansor") return PolicyKind::kAnsor;
  if (name == "random") return PolicyKind::kRandom;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown search policy '", name, "'; known: ansor (the default), random"));
}

const char* PolicyName(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kAnsor: return "ansor";
    case PolicyKind::kRandom: return "random";
  }
  return "ansor";
}

std::unique_ptr<SearchPolicy> MakePolicy(PolicyKind kind, const PolicyContext& context) {
  switch (kind) {
    case PolicyKind::kAnsor: {
      // Without a target's shared model the policy learns with its own.
      std::shared_ptr<SharedCostModel> model =
          context.cost_model ? context.cost_model : std::make_shared<SharedCostModel>([] { return MakeXGBoostModel(); });
      SketchPolicyOptions options;
      options.sketch_selection = context.sketch_selection;
      return MakeSketchPolicy(context.dag, context.hw, std::move(model), context.seed, options);
    }
    case PolicyKind::kRandom: break;
  }
  return MakeRandomSearch(context.dag, context.seed);
}

}  // namespace tuneforge::search
