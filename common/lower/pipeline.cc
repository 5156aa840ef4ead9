// The lowering pipeline: State -> LoweredFunc, as an ordered list of passes.
#include "common/lower/lower.h"
#include "common/lower/lower_context.h"
#include "common/lower/passes/build_loop_nest.h"
#include "common/lower/passes/chain_accumulations.h"
#include "common/lower/passes/drop_padded_taps.h"
#include "common/lower/passes/flatten_buffers.h"
#include "common/lower/passes/partition_boundaries.h"
#include "common/lower/passes/roll_loops.h"
#include "common/lower/passes/simplify_stmt.h"
#include "common/lower/passes/unroll.h"
#include "common/lower/passes/unroll_tile_loops.h"
#include "common/lower/passes/vectorize.h"

namespace tuneforge::lower {

namespace {

Stmt RunPasses(Stmt body, const LowerOptions& options) {
  // Flatten first: a vectorized variable then appears once in a flat index,
  // and contiguity is just "coefficient 1".
  body = FlattenBuffers(body);
  // Simplify before vectorizing so indices are canonical sums (region
  // offsets cancel, guards that always hold are gone).
  body = SimplifyStmt(body);
  if (options.vectorize) body = Vectorize(body, options.register_lanes);
  // Unroll after vectorizing: an unrolled loop around a vectorized one
  // copies vector statements, and each copy then simplifies to constant
  // offsets.
  // The small loops of a reduction's tile first, so that the reduction's
  // loop is the innermost one left (passes/unroll_tile_loops.h).
  if (options.unroll) body = Unroll(UnrollTileLoops(body));
  // Again only where a pass ran since (features lower with neither).
  if (options.vectorize || options.unroll) body = SimplifyStmt(body);
  // Last, on the final loops: unrolling has turned each tap's border test
  // into one over the loops left, which partitioning and unswitching can
  // decide; the taps that read padding then go. Only where code is made
  // (features describe the schedule's loops, not these copies).
  if (options.partition_boundaries && options.unroll) {
    body = PartitionBoundaries(body);
    body = DropPaddedTaps(body);
  }
  // After the taps of zero are gone: an unrolled reduction's run of stores
  // into one element becomes one store of the whole sum.
  if (options.unroll) body = ChainAccumulations(body);
  return body;
}

}  // namespace

absl::StatusOr<LoweredFunc> Lower(const schedule::State& state, const LowerOptions& options) {
  absl::StatusOr<LowerContext> ctx = MakeLowerContext(state, options);
  if (!ctx.ok()) return ctx.status();
  absl::StatusOr<Stmt> nest = BuildLoopNest(*ctx);
  if (!nest.ok()) return nest.status();
  LoweredFunc func{options.name, ctx->arguments, RunPasses(*nest, options)};
  for (const auto& [s, h] : ctx->hoisted) func.num_packed += h.prepack_only ? 0 : 1;
  if (!options.prepack) return func;
  // Runs once, untimed: its loops are not worth copying (roll_loops.h).
  if (Stmt prepack = BuildPrepackNest(*ctx)) func.prepack = RunPasses(RollLoops(prepack), options);
  return func;
}

}  // namespace tuneforge::lower
