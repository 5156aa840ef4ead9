// Everything the loop-nest builder needs about a State, computed once:
// loop variables, regions, inlined bodies, output buffers, attachments.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "common/lower/lower.h"
#include "common/schedule/bound.h"
#include "common/schedule/state.h"
#include "common/te/buffer.h"

namespace tuneforge::lower {

// A stage computed once, before the kernel runs, from constants only (see
// LoweredFunc::prepack): its region for each iteration of `outer` (the
// enclosing loops its region moves with, outermost first) is the slice
// `packed[slot..., :]`, slot given by `slot` in those loops' variables.
struct HoistedStage {
  std::vector<std::pair<te::Var, int64_t>> outer;
  std::vector<te::Expr> slot;
  te::Buffer packed;
  // Read only by other hoisted stages (Winograd's kernel transform, where the
  // product reads a packed copy of it): a temporary of the prepack function,
  // not an argument that would hold a second copy of the weights.
  bool prepack_only = false;
};

struct LowerContext {
  const schedule::State* state = nullptr;
  LowerOptions options;
  schedule::LoopVars vars;                // [stage][node], names unique in the program
  std::vector<schedule::Region> regions;  // per stage
  std::vector<te::Expr> bodies;           // effective (inlined) bodies
  std::vector<te::Buffer> buffers;        // output buffer per non-inlined stage
  // Per stage: the region dimension its local buffer stores at each
  // position (local_layout.h); empty: the tensor's order.
  std::vector<std::vector<int>> dim_order;
  std::vector<bool> is_argument;          // buffer is a kernel argument
  std::vector<te::Buffer> arguments;      // kernel arguments in order
  // Stages computed inside (stage, node), in stage order.
  std::map<std::pair<int, int>, std::vector<int>> attached;
  std::vector<int> root_stages;           // non-inlined compute stages at root, in order
  // By stage; their buffers (but those of prepack_only ones) end `arguments`.
  std::map<int, HoistedStage> hoisted;

  const schedule::Stage& stage(int s) const { return state->stage(s); }
  // Whether everything stage s's body reads is a constant placeholder or a
  // stage `constant_stage` accepts (given its index): the layout rewrite and
  // the constant hoisting each ask it with their own notion of a constant
  // stage.
  bool ReadsOnlyConstants(int s, const std::function<bool(int producer)>& constant_stage) const;
  // Stage s's region extents, or a region-relative index, in the order its
  // buffer stores them.
  std::vector<int64_t> StoredExtents(int s) const { return Stored(s, regions[s].extent); }
  template <typename T>
  std::vector<T> Stored(int s, std::vector<T> dims) const {
    if (dim_order[s].empty()) return dims;
    std::vector<T> out;
    for (int d : dim_order[s]) out.push_back(std::move(dims[d]));
    return out;
  }
};

// Errors: GPU bindings on a CPU target, invalid placements.
absl::StatusOr<LowerContext> MakeLowerContext(const schedule::State& state,
                                              const LowerOptions& options);

}  // namespace tuneforge::lower
