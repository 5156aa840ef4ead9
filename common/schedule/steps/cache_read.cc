// cache_read: a new stage "<name>.<scope>" copies a stage's output into a
// buffer of `scope`; the listed readers read the copy instead.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "common/schedule/steps/apply_step.h"
#include "common/schedule/steps/dag_rewrite.h"
#include "common/schedule/steps/placement.h"

namespace tuneforge::schedule {
namespace {

absl::Status CheckReaders(const StepContext& ctx, const CacheReadStep& step) {
  const State& state = *ctx.state;
  const std::vector<int>& consumers = state.dag()->analysis(step.stage).consumers;
  if (step.readers.empty())
    return ctx.Error("readers is empty; list the consumers of ", StageLabel(state, step.stage),
                     " that should read the cache");
  absl::flat_hash_set<int> seen;
  for (int r : step.readers) {
    if (absl::Status s = ctx.CheckStage(r); !s.ok()) return s;
    if (!seen.insert(r).second) return ctx.Error("reader ", r, " is listed twice");
    if (std::find(consumers.begin(), consumers.end(), r) == consumers.end())
      return ctx.Error("reader ", StageLabel(state, r), " does not read ",
                       StageLabel(state, step.stage), "; readers must be its consumers");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyStep(const CacheReadStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckStage(step.stage); !s.ok()) return s;
  if (absl::Status s = ctx.CheckScope(step.scope); !s.ok()) return s;
  State& state = *ctx.state;
  const std::string name = StageLabel(state, step.stage);
  const Stage& stage = state.stage(step.stage);
  if (std::holds_alternative<ComputeInlined>(stage.location))
    return ctx.Error("stage ", name,
                     " is inlined and has no buffer to cache; compute_root it first");
  if (std::holds_alternative<ComputeAtIter>(stage.location))
    return ctx.Error("stage ", name,
                     " is computed inside another stage's loop, but its cache would be computed "
                     "at root; add caches before compute_at (or compute_root it first)");
  if (absl::Status s = CheckReaders(ctx, step); !s.ok()) return s;

  const int at = step.stage + 1;
  absl::StatusOr<te::ComputeDagPtr> dag =
      SharedRewrite(state.dag(), step, [&]() -> absl::StatusOr<te::ComputeDagPtr> {
        const te::Tensor& source = stage.op;
        absl::StatusOr<te::Tensor> cache =
            MakeCopyOp(UniqueOpName(*state.dag(), absl::StrCat(source->name, ".", step.scope)), source,
                       "cache_read");
        if (!cache.ok()) return cache.status();
        DagRewrite rewrite;
        rewrite.ops = state.dag()->ops();
        rewrite.ops.insert(rewrite.ops.begin() + at, *cache);
        for (int r : step.readers) rewrite.redirects.emplace_back(r + 1, source.get(), *cache);
        return RebuildDag(std::move(rewrite));
      });
  if (!dag.ok()) return ctx.Error(dag.status().message());

  Stage inserted = MakeInitialStage((*dag)->op(at));
  inserted.scope = step.scope;
  InsertStage(&state, *dag, at, std::move(inserted));
  if (absl::Status s = CheckAllPlacements(state); !s.ok()) return ctx.Error(s.message());
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
