#include "common/schedule/node_values.h"

#include <algorithm>

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
                     int n = static_cast<int>(s.children.size());
                     int64_t rest = stage->nodes[s.parent].extent;
                     // Children in the order the lengths peel them off.
                     for (int k = 0; k + 1 < n; ++k) {
                       int child = s.inner_to_outer ? n - 1 - k : k;
                       int64_t length = s.inner_to_outer ? s.lengths[n - 2 - k] : s.lengths[k];
                       stage->nodes[s.children[child]].extent = std::min(length, rest);
                       rest = (rest + length - 1) / length;
                     }
                     stage->nodes[s.children[s.inner_to_outer ? 0 : n - 1]].extent = rest;
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
