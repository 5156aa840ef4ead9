#include "search/search_policy.h"

#include "absl/strings/str_cat.h"
#include "search/random_search.h"

namespace tuneforge::search {

absl::StatusOr<PolicyKind> ParsePolicy(const std::string& name) {
  if (name.empty() || name == "random") return PolicyKind::kRandom;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown search policy '", name, "'; known: random"));
}

const char* PolicyName(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kRandom: return "random";
  }
  return "random";
}

std::unique_ptr<SearchPolicy> MakePolicy(PolicyKind kind, te::ComputeDagPtr dag, uint64_t seed) {
  switch (kind) {
    case PolicyKind::kRandom: return MakeRandomSearch(std::move(dag), seed);
  }
  return MakeRandomSearch(std::move(dag), seed);
}

}  // namespace tuneforge::search
