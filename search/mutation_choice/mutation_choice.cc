#include "search/mutation_choice/mutation_choice.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::search {

absl::StatusOr<MutationChoice> ParseMutationChoice(const std::string& name) {
  if (name.empty() || name == "fixed") return MutationChoice::kFixed;
  if (name == "learned") return MutationChoice::kLearned;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown mutation choice '", name, "'; known: fixed (Ansor's weights, the default), learned"));
}

const char* MutationChoiceName(MutationChoice choice) {
  switch (choice) {
    case MutationChoice::kFixed: return "fixed";
    case MutationChoice::kLearned: return "learned";
  }
  return "fixed";
}

}  // namespace tuneforge::search
