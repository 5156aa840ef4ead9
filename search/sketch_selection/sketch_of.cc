#include "search/sketch_selection/sketch_of.h"

namespace tuneforge::search {
namespace {

// Same shape: what annotation and mutations never change about a step.
bool SameShape(const schedule::Step& a, const schedule::Step& b) {
  if (a.index() != b.index() || schedule::StepStage(a) != schedule::StepStage(b)) return false;
  if (const auto* split = std::get_if<schedule::SplitStep>(&a)) {
    const auto& other = std::get<schedule::SplitStep>(b);
    return split->iter == other.iter && split->lengths.size() == other.lengths.size();
  }
  if (const auto* reorder = std::get_if<schedule::ReorderStep>(&a))
    return reorder->order == std::get<schedule::ReorderStep>(b).order;
  if (const auto* read = std::get_if<schedule::CacheReadStep>(&a))
    return read->readers == std::get<schedule::CacheReadStep>(b).readers;
  return true;
}

}  // namespace

int SketchIndexOf(const std::vector<schedule::Step>& steps, const std::vector<schedule::State>& sketches) {
  int found = -1;
  size_t found_length = 0;
  for (size_t s = 0; s < sketches.size(); ++s) {
    const std::vector<schedule::Step>& shape = sketches[s].steps();
    if (shape.size() > steps.size() || (found >= 0 && shape.size() <= found_length)) continue;
    bool same = true;
    for (size_t i = 0; i < shape.size() && same; ++i) same = SameShape(shape[i], steps[i]);
    if (same) {
      found = static_cast<int>(s);
      found_length = shape.size();
    }
  }
  return found;
}

}  // namespace tuneforge::search
