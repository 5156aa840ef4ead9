// The transform steps of Ansor's loop state: the closed set of edits a
// schedule is made of. A schedule is a list of steps; replaying the list on
// the workload's ComputeDag reproduces the State exactly (see state.h).
//
// Steps name stages and iterators by index in the state *at the time the
// step is applied*: stage s is State::stages()[s], iterator i is
// stages()[s].iters[i] (outermost loop first).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tuneforge::schedule {

enum class IterAnnotation : uint8_t {
  kNone, kUnroll, kVectorize, kParallel, kVThread,
  kBlockX, kBlockY, kBlockZ, kThreadX, kThreadY, kThreadZ,  // kThreadZ stays last
};
const char* AnnotationName(IterAnnotation a);  // "none", "unroll", ..., "blockIdx.x", "threadIdx.z"
// The annotation AnnotationName prints as `name`, or nullopt.
std::optional<IterAnnotation> ParseAnnotation(std::string_view name);
bool IsGpuBinding(IterAnnotation a);            // vthread, blockIdx.*, threadIdx.*
bool IsThreadBinding(IterAnnotation a);         // threadIdx.*

// Split iterator `iter` into lengths.size()+1 iterators.
// inner_to_outer: lengths are the inner factors, innermost last; the new
//   outermost iterator gets extent ceil(extent / product(lengths)).
// otherwise: lengths are the outer extents, outermost first; the new
//   innermost iterator gets the remaining ceil(extent / product(lengths)).
// Non-divisible factors are legal: lowering guards the tail.
struct SplitStep {
  int stage = 0;
  int iter = 0;
  std::vector<int64_t> lengths;
  bool inner_to_outer = true;
};
// Split like the earlier SplitStep number `src_step` of this schedule: its
// first n_split-1 lengths, then the product of the rest (inner_to_outer).
struct FollowSplitStep {
  int stage = 0;
  int iter = 0;
  int src_step = 0;
  int n_split = 1;
};
// Split by one factor: the product of lengths[level] over the earlier
// SplitSteps `src_steps`. factor_or_nparts: true -> that product is the inner
// extent; false -> it is the outer extent.
struct FollowFusedSplitStep {
  int stage = 0;
  int iter = 0;
  std::vector<int> src_steps;
  int level = 0;
  bool factor_or_nparts = true;
};
// New loop order: a permutation of all the stage's iterator indices.
struct ReorderStep {
  int stage = 0;
  std::vector<int> order;
};
// Fuse consecutive iterators (outermost first) of the same kind into one.
struct FuseStep {
  int stage = 0;
  std::vector<int> iters;
};
struct AnnotationStep {
  int stage = 0;
  int iter = 0;
  IterAnnotation annotation = IterAnnotation::kNone;
};
// The only pragma Ansor uses: unroll loops below `iter` (in the lowered
// program, every loop nest whose total trip count <= value is unrolled).
struct PragmaStep {
  int stage = 0;
  int iter = 0;
  int64_t auto_unroll_max_step = 0;
};
// Pad the stride of the dimension of `iter` (an untransformed spatial axis)
// so that stride % factor == offset.
struct StorageAlignStep {
  int stage = 0;
  int iter = 0;
  int64_t factor = 0;
  int64_t offset = 0;
};
// Compute `stage` inside the loop `target_iter` of `target_stage`.
struct ComputeAtStep {
  int stage = 0;
  int target_stage = 0;
  int target_iter = 0;
};
struct ComputeRootStep {
  int stage = 0;
};
// Substitute the stage's expression into every consumer.
struct ComputeInlineStep {
  int stage = 0;
};
// Add a stage that copies `stage`'s output into a buffer of `scope`, read by
// `readers` (stage indices) instead. The new stage is inserted right after
// `stage`; later stage indices shift by one.
struct CacheReadStep {
  int stage = 0;
  std::string scope = "local";
  std::vector<int> readers;
};
// Compute `stage` into a buffer of `scope`; the original stage becomes a copy
// out of it. The new stage is inserted at `stage` (the original moves to
// stage + 1) and both stages restart from untransformed iterators.
struct CacheWriteStep {
  int stage = 0;
  std::string scope = "local";
};
// Factor the reduction: reduction iterator `iter` becomes a spatial axis of a
// new stage (inserted at `stage`) that computes partial results, placed at
// position `factor_iter` of its axes; the original stage (now stage + 1)
// reduces those partials. Both restart from untransformed iterators.
struct RfactorStep {
  int stage = 0;
  int iter = 0;
  int factor_iter = 0;
};

using Step = std::variant<SplitStep, FollowSplitStep, FollowFusedSplitStep, ReorderStep, FuseStep,
                          AnnotationStep, PragmaStep, StorageAlignStep, ComputeAtStep,
                          ComputeRootStep, ComputeInlineStep, CacheReadStep, CacheWriteStep,
                          RfactorStep>;

// "split", "follow_split", ..., "rfactor": the JSON "kind" of each step.
const char* StepKindName(const Step& step);
// The stage a step edits (its first field).
int StepStage(const Step& step);
// Canonical one-line text of a step, every field named:
// split(stage=2, iter=0, lengths=[32, 4], inner_to_outer=true). State::Hash
// hashes it, so it must not change for an existing step.
std::string StepToString(const Step& step);

}  // namespace tuneforge::schedule
