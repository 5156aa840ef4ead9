#include "search/search_policy.h"

#include "absl/strings/str_cat.h"
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
    case PolicyKind::kAnsor:
      if (context.cost_model)
        return MakeSketchPolicy(context.dag, context.hw, context.cost_model, context.seed);
      break;  // no model to learn with: random search
    case PolicyKind::kRandom: break;
  }
  return MakeRandomSearch(context.dag, context.seed);
}

}  // namespace tuneforge::search
