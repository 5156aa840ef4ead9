#include "measure/kernel_args.h"

#include "absl/strings/str_cat.h"
#include "common/te/compute_dag.h"
#include "common/te/ndarray.h"

namespace tuneforge::measure {

std::vector<ArgSpec> DagArgSpecs(const te::ComputeDag& dag) {
  const std::vector<int> ops = dag.ArgumentOps();
  const size_t num_inputs = dag.InputOps().size();
  std::vector<ArgSpec> specs;
  specs.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const te::Tensor& op = dag.op(ops[i]);
    specs.push_back(ArgSpec{op->name, op->dtype, op->shape, i >= num_inputs});
  }
  return specs;
}

std::string ToString(const ArgSpec& arg) {
  return absl::StrCat(arg.name, ": ", te::ToString(arg.dtype), te::ShapeToString(arg.shape),
                      arg.is_output ? " (output)" : "");
}

}  // namespace tuneforge::measure
