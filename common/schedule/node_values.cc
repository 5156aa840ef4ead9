#include "common/schedule/node_values.h"

#include "common/overloaded.h"

namespace tuneforge::schedule {

std::vector<te::Expr> NodeValues(const Stage& stage, const std::vector<te::Expr>& leaf_values) {
  std::vector<te::Expr> value(stage.nodes.size());
  for (const Iterator& it : stage.iters) value[it.node] = leaf_values[it.node];
  // A relation's children were made by it and only used by later
  // relations, so walking relations backwards computes children first.
  for (auto rel = stage.relations.rbegin(); rel != stage.relations.rend(); ++rel) {
    std::visit(Overloaded{
                   [&](const SplitRelation& s) {
                     te::Expr v = value[s.children[0]];
                     for (size_t c = 1; c < s.children.size(); ++c)
                       v = v * te::Expr(stage.nodes[s.children[c]].extent) + value[s.children[c]];
                     value[s.parent] = v;
                   },
                   [&](const FuseRelation& f) {
                     int64_t stride = 1;
                     for (int k = static_cast<int>(f.parents.size()) - 1; k >= 0; --k) {
                       te::Expr v = value[f.child];
                       if (stride != 1) v = te::FloorDiv(v, te::Expr(stride));
                       if (k != 0) v = te::FloorMod(v, te::Expr(stage.nodes[f.parents[k]].extent));
                       value[f.parents[k]] = v;
                       stride *= stage.nodes[f.parents[k]].extent;
                     }
                   },
               },
               *rel);
  }
  return value;
}

std::vector<te::Expr> SplitGuards(const Stage& stage, const std::vector<te::Expr>& values,
                                  bool spatial_only) {
  std::vector<te::Expr> guards;
  for (const IterRelation& rel : stage.relations) {
    const auto* s = std::get_if<SplitRelation>(&rel);
    if (!s) continue;
    const IterNode& parent = stage.nodes[s->parent];
    if (spatial_only && parent.kind != IterKind::kSpatial) continue;
    int64_t span = 1;
    for (int c : s->children) span *= stage.nodes[c].extent;
    if (span > parent.extent) guards.push_back(values[s->parent] < te::Expr(parent.extent));
  }
  return guards;
}

void RecomputeDerivedExtents(Stage* stage) {
  for (const IterRelation& rel : stage->relations) {
    std::visit(Overloaded{
                   [&](const SplitRelation& s) {
                     size_t rest = s.inner_to_outer ? 0 : s.children.size() - 1;
                     int64_t fixed = 1;
                     for (size_t c = 0; c < s.children.size(); ++c)
                       if (c != rest) fixed *= stage->nodes[s.children[c]].extent;
                     int64_t parent = stage->nodes[s.parent].extent;
                     stage->nodes[s.children[rest]].extent = (parent + fixed - 1) / fixed;
                   },
                   [&](const FuseRelation& f) {
                     int64_t product = 1;
                     for (int p : f.parents) product *= stage->nodes[p].extent;
                     stage->nodes[f.child].extent = product;
                   },
               },
               rel);
  }
}

}  // namespace tuneforge::schedule
