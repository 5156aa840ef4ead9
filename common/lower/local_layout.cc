#include "common/lower/local_layout.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "common/schedule/effective_body.h"
#include "common/schedule/node_values.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::lower {
namespace {

using VarDepths = absl::flat_hash_map<const te::VarNode*, int>;

// Deepest loop position among the variables of `e` (-1: none).
int Deepest(const te::Expr& e, const VarDepths& depths) {
  int deepest = -1;
  te::PostOrderVisit(e, [&](const te::Expr& n) {
    const auto* ref = n.as<te::VarRef>();
    if (!ref) return;
    if (auto it = depths.find(ref->var.get()); it != depths.end()) deepest = std::max(deepest, it->second);
  });
  return deepest;
}

// For each axis and reduction variable of stage x's op: the position in x's
// loop nest of the innermost loop that moves it.
VarDepths AxisDepths(const LowerContext& ctx, int x) {
  const schedule::Stage& stage = ctx.stage(x);
  std::vector<te::Expr> leaf(stage.nodes.size());
  VarDepths loop_position;
  for (size_t i = 0; i < stage.iters.size(); ++i) {
    const te::Var& v = ctx.vars[x][stage.iters[i].node];
    leaf[stage.iters[i].node] = te::Expr(v);
    loop_position[v.get()] = static_cast<int>(i);
  }
  std::vector<te::Expr> values = schedule::NodeValues(stage, leaf);
  const te::TensorNode& op = *stage.op;
  VarDepths depths;
  for (size_t a = 0; a < op.axes.size(); ++a) depths[op.axes[a].var.get()] = Deepest(values[a], loop_position);
  if (const te::Reduce* red = op.reduce())
    for (size_t r = 0; r < red->axes.size(); ++r)
      depths[red->axes[r].var.get()] = Deepest(values[op.axes.size() + r], loop_position);
  return depths;
}

// The one read of stage s by another (non-inlined) stage, with its reader;
// nullopt where s is read more than once.
std::optional<std::pair<int, const te::TensorRead*>> OnlyRead(const LowerContext& ctx, int s) {
  const te::TensorNode* tensor = ctx.stage(s).op.get();
  std::optional<std::pair<int, const te::TensorRead*>> only;
  int reads = 0;
  for (int x = 0; x < ctx.state->num_stages(); ++x) {
    if (x == s || !ctx.bodies[x] || schedule::IsInlined(ctx.stage(x))) continue;  // read where inlined
    te::PostOrderVisit(ctx.bodies[x], [&](const te::Expr& e) {
      const auto* read = e.as<te::TensorRead>();
      if (!read || read->tensor.get() != tensor) return;
      ++reads;
      only.emplace(x, read);
    });
  }
  if (reads != 1) return std::nullopt;
  return only;
}

// Whether stage s's values depend on constant placeholders alone (through
// other stages too): the layout rewrite computes such a stage once, before
// the first call, so how its own loops write it costs nothing per call.
// (hoist_constants.cc decides which stages it really precomputes, after the
// layouts are known, so it cannot be asked here; both ask the context's
// ReadsOnlyConstants.)
bool ReadsConstantsOnly(const LowerContext& ctx, int s) {
  return ctx.ReadsOnlyConstants(s, [&](int producer) {
    return producer != s && ctx.bodies[producer] && ReadsConstantsOnly(ctx, producer);
  });
}

}  // namespace

std::vector<int> LocalDimOrder(const LowerContext& ctx, int s) {
  const schedule::Stage& stage = ctx.stage(s);
  const size_t rank = stage.op->axes.size();
  if (ctx.options.gpu || ctx.is_argument[s] || stage.is_placeholder() || schedule::IsInlined(stage) ||
      !stage.storage_align.empty() || rank < 2)
    return {};
  std::vector<int> keys(rank);
  // A copy (a cache read) is laid out for the loops that read it, and so is
  // a stage precomputed once from constants (Winograd's transformed kernel,
  // read along the output channel by the batched matmul); anything else for
  // its own loops, which write it.
  std::optional<std::pair<int, const te::TensorRead*>> read;
  const bool precomputed = ctx.options.hoist_constants && ReadsConstantsOnly(ctx, s);
  if (ctx.bodies[s].as<te::TensorRead>() || precomputed) read = OnlyRead(ctx, s);
  if (read) {
    VarDepths depths = AxisDepths(ctx, read->first);
    for (size_t d = 0; d < rank; ++d) keys[d] = Deepest(read->second->indices[d], depths);
  } else {
    VarDepths depths = AxisDepths(ctx, s);
    for (size_t d = 0; d < rank; ++d) keys[d] = depths[stage.op->axes[d].var.get()];
  }
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
  if (std::is_sorted(order.begin(), order.end())) return {};
  return order;
}

}  // namespace tuneforge::lower
