#include "search/search_policy.h"

#include "absl/strings/str_cat.h"
#include "search/cost_model/cost_model.h"
#include "search/droplet/droplet_policy.h"
#include "search/random_search.h"
#include "search/sketch_policy.h"

namespace tuneforge::search {

absl::StatusOr<PolicyKind> ParsePolicy(const std::string& name) {
  if (name.empty() || name == "ansor") return PolicyKind::kAnsor;
  if (name == "random") return PolicyKind::kRandom;
  if (name == "droplet") return PolicyKind::kDroplet;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown search policy '", name, "'; known: ansor (the default), droplet, random"));
}

const char* PolicyName(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kAnsor: return "ansor";
    case PolicyKind::kRandom: return "random";
    case PolicyKind::kDroplet: return "droplet";
  }
  return "ansor";
}

std::unique_ptr<SearchPolicy> MakePolicy(PolicyKind kind, const PolicyContext& context) {
  switch (kind) {
    case PolicyKind::kAnsor:
    case PolicyKind::kDroplet: {
      // Without a target's shared model the policy learns with its own.
      std::shared_ptr<SharedCostModel> model =
          context.cost_model ? context.cost_model : std::make_shared<SharedCostModel>([] { return MakeXGBoostModel(); });
      SketchPolicyOptions options;
      options.sketch_selection = context.sketch_selection;
      options.mutation_choice = context.mutation_choice;
      options.best_neighbour_share = context.best_neighbour_share;
      if (kind == PolicyKind::kAnsor)
        return MakeSketchPolicy(context.dag, context.hw, std::move(model), context.seed, options);
      DropletOptions droplet;
      droplet.after = context.droplet_after;
      return MakeDropletPolicy(context.dag, context.hw, std::move(model), context.seed, droplet, options);
    }
    case PolicyKind::kRandom: break;
  }
  return MakeRandomSearch(context.dag, context.seed);
}

}  // namespace tuneforge::search
