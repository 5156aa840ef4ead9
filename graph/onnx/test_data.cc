#include "graph/onnx/test_data.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "graph/onnx/tensor_proto.h"

namespace tuneforge::graph {

absl::StatusOr<std::vector<TestDataSet>> ReadTestDataSets(const std::string& dir, size_t inputs, size_t outputs) {
  namespace fs = std::filesystem;
  std::vector<TestDataSet> sets;
  for (int s = 0;; ++s) {
    fs::path set = fs::path(dir) / absl::StrCat("test_data_set_", s);
    if (!fs::exists(set)) break;
    TestDataSet d;
    for (auto [prefix, count, arrays] : {std::make_tuple("input_", inputs, &d.inputs),
                                         std::make_tuple("output_", outputs, &d.outputs)})
      for (size_t i = 0; i < count; ++i) {
        auto a = onnx_import::ReadTensorFile((set / absl::StrCat(prefix, i, ".pb")).string());
        if (!a.ok()) return a.status();
        arrays->push_back(*std::move(a));
      }
    sets.push_back(std::move(d));
  }
  return sets;
}

}  // namespace tuneforge::graph
