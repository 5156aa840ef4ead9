// Shared machinery of the steps that change the ComputeDag (cache_read,
// cache_write, rfactor): building the new ops, rebuilding every op
// downstream of a change so that reads point at the new tensors (axis
// variables are kept), and inserting the new stage into the State with
// every stored stage index shifted.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "common/schedule/state.h"
#include "common/te/compute_dag.h"
#include "common/te/tensor.h"

namespace tuneforge::schedule {

struct DagRewrite {
  // The ops in their new order (topological), new and replaced ops in place.
  std::vector<te::Tensor> ops;
  // Replaced ops: every read of the old op anywhere becomes a read of the new one.
  absl::flat_hash_map<const te::TensorNode*, te::Tensor> replaced;
  // Reads redirected in one op only: (index in `ops`, tensor read, new tensor).
  std::vector<std::tuple<int, const te::TensorNode*, te::Tensor>> redirects;
};

// Applies the replacements and redirects, rebuilds every op that (directly
// or through rebuilt ops) reads a changed tensor, and makes the new DAG in
// exactly the order of `rewrite.ops`.
absl::StatusOr<te::ComputeDagPtr> RebuildDag(DagRewrite rewrite);

// The DAG that `step` (a cache_read or cache_write, whose new DAG depends
// only on the DAG it starts from and the step) makes of `dag`: built by
// `build` the first time on this thread, the same DAG afterwards. The search
// replays a sketch's steps thousands of times a round; one DAG for all its
// programs lets what is derived from the ops (each stage's inlined body) be
// kept between replays.
absl::StatusOr<te::ComputeDagPtr> SharedRewrite(const te::ComputeDagPtr& dag, const Step& step,
                                                absl::FunctionRef<absl::StatusOr<te::ComputeDagPtr>()> build);

// `base`, or `base.1`, `base.2`, ... when an op of `dag` already has that name.
std::string UniqueOpName(const te::ComputeDag& dag, const std::string& base);

// Fresh variables named like `axes` (same extents).
std::vector<te::IterVar> FreshAxes(const std::vector<te::IterVar>& axes);

// An op named `name` that copies `source` element by element (cache stages).
absl::StatusOr<te::Tensor> MakeCopyOp(const std::string& name, const te::Tensor& source,
                                      const std::string& tag);

// Makes `dag` the state's DAG with `inserted` as the new stage `at`: later
// stages shift by one (and so does every compute_at target pointing at
// them), and every stage's op is refreshed from the new DAG.
void InsertStage(State* state, te::ComputeDagPtr dag, int at, Stage inserted);
// Gives a stage whose op was rebuilt (cache_write, rfactor) untransformed
// loops, keeping where it is computed, its scope and its storage alignment.
void ResetLoopsKeepingPlacement(Stage* stage);

}  // namespace tuneforge::schedule
