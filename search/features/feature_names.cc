// Names and transforms of the row's columns, generated from feature_table.h.
#include "absl/strings/str_cat.h"
#include "search/features/feature_table.h"
#include "search/features/features.h"

namespace tuneforge::search {

int NumFeatures() { return features::kRowWidth; }

const std::vector<std::string>& FeatureNames() {
  static const std::vector<std::string>* names = [] {
    auto* out = new std::vector<std::string>;
    out->reserve(features::kRowWidth);
    for (const features::FeatureInfo& f : features::kStoreFeatureInfo) out->push_back(f.name);
    for (int slot = 0; slot < features::kMaxBuffers; ++slot)
      for (const features::FeatureInfo& f : features::kBufferFeatureInfo)
        out->push_back(absl::StrCat("B", slot, ".", f.name));
    return out;
  }();
  return *names;
}

namespace features {

Transform TransformOf(int index) {
  if (index < kNumStoreFeatures) return kStoreFeatureInfo[index].transform;
  return kBufferFeatureInfo[(index - kNumStoreFeatures) % kNumBufferFeatures].transform;
}

}  // namespace features
}  // namespace tuneforge::search
