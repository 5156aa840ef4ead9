#include "search/sketch_selection/sketch_selection.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::search {

absl::StatusOr<SketchSelection> ParseSketchSelection(const std::string& name) {
  if (name.empty() || name == "uniform") return SketchSelection::kUniform;
  if (name == "learned") return SketchSelection::kLearned;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown sketch selection '", name, "'; known: uniform (Ansor's, the default), learned"));
}

const char* SketchSelectionName(SketchSelection selection) {
  switch (selection) {
    case SketchSelection::kUniform: return "uniform";
    case SketchSelection::kLearned: return "learned";
  }
  return "uniform";
}

}  // namespace tuneforge::search
