// State::ToString: what a schedule author needs to write the next step.
//
//   stage 2 C: root
//     0 i.0: 16 spatial parallel
//     1 k: 128 reduce
//   stage 3 C.local: at C (2) loop 0 i.0; scope local; auto_unroll_max_step 16
#include "absl/strings/str_cat.h"
#include "common/overloaded.h"
#include "common/schedule/state.h"

namespace tuneforge::schedule {
namespace {

std::string LocationText(const State& state, const Stage& stage) {
  if (stage.is_placeholder()) return "placeholder";
  return std::visit(Overloaded{
                        [](const ComputeRoot&) -> std::string { return "root"; },
                        [](const ComputeInlined&) -> std::string { return "inlined"; },
                        [&](const ComputeAtIter& at) -> std::string {
                          const Stage& target = state.stage(at.target_stage);
                          return absl::StrCat("at ", target.op->name, " (", at.target_stage,
                                              ") loop ", target.IterIndexOfNode(at.target_node),
                                              " ", target.nodes[at.target_node].name);
                        },
                    },
                    stage.location);
}

}  // namespace

std::string State::ToString() const {
  std::string out;
  for (int s = 0; s < num_stages(); ++s) {
    const Stage& stage = stages_[s];
    absl::StrAppend(&out, "stage ", s, " ", stage.op->name, ": ", LocationText(*this, stage));
    if (stage.scope != "global") absl::StrAppend(&out, "; scope ", stage.scope);
    if (stage.auto_unroll_max_step != 0)
      absl::StrAppend(&out, "; auto_unroll_max_step ", stage.auto_unroll_max_step);
    for (const StorageAlign& a : stage.storage_align)
      absl::StrAppend(&out, "; storage_align axis ", a.axis, " factor ", a.factor, " offset ",
                      a.offset);
    out += "\n";
    for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i) {
      const Iterator& it = stage.iters[i];
      const IterNode& node = stage.nodes[it.node];
      absl::StrAppend(&out, "  ", i, " ", node.name, ": ", node.extent,
                      node.kind == IterKind::kSpatial ? " spatial" : " reduce");
      if (it.annotation != IterAnnotation::kNone)
        absl::StrAppend(&out, " ", AnnotationName(it.annotation));
      out += "\n";
    }
  }
  return out;
}

}  // namespace tuneforge::schedule
