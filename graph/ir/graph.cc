#include "graph/ir/graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tuneforge::graph {

int64_t Value::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

ValueId Graph::AddValue(Value v) {
  values.push_back(std::move(v));
  return static_cast<ValueId>(values.size()) - 1;
}

int Graph::Producer(ValueId v) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].output == v) return static_cast<int>(i);
  return -1;
}

std::vector<int> Graph::Consumers(ValueId v) const {
  std::vector<int> out;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (std::find(nodes[i].inputs.begin(), nodes[i].inputs.end(), v) != nodes[i].inputs.end())
      out.push_back(static_cast<int>(i));
  return out;
}

bool Graph::IsOutput(ValueId v) const {
  return std::find(outputs.begin(), outputs.end(), v) != outputs.end();
}

std::string TypeString(const Value& v) {
  return absl::StrCat(te::ToString(v.dtype), "[", absl::StrJoin(v.shape, ", "), "]");
}

std::string Graph::ToString() const {
  std::string out;
  for (const Node& n : nodes) {
    std::vector<std::string> ins;
    for (ValueId v : n.inputs)
      ins.push_back(values[v].is_constant() ? absl::StrCat(values[v].name, " (const)")
                                            : values[v].name);
    absl::StrAppend(&out, n.name, ": ", OpName(n.op), "(", absl::StrJoin(ins, ", "), ") -> ",
                    values[n.output].name, " ", TypeString(values[n.output]), "\n");
  }
  return out;
}

}  // namespace tuneforge::graph
