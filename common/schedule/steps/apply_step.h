// One ApplyStep overload per step kind (one .cc per family in this folder).
// Each validates the step against ctx.state completely, then edits the state;
// State::Apply records the step and runs bound inference afterwards.
#pragma once

#include "absl/status/status.h"
#include "common/schedule/steps.h"
#include "common/schedule/steps/step_context.h"

namespace tuneforge::schedule {

absl::Status ApplyStep(const SplitStep& step, const StepContext& ctx);        // split.cc
absl::Status ApplyStep(const FollowSplitStep& step, const StepContext& ctx);  // follow_split.cc
absl::Status ApplyStep(const FollowFusedSplitStep& step,
                       const StepContext& ctx);                                // follow_split.cc
absl::Status ApplyStep(const ReorderStep& step, const StepContext& ctx);       // reorder.cc
absl::Status ApplyStep(const FuseStep& step, const StepContext& ctx);          // fuse.cc
absl::Status ApplyStep(const AnnotationStep& step, const StepContext& ctx);    // annotation.cc
absl::Status ApplyStep(const PragmaStep& step, const StepContext& ctx);        // annotation.cc
absl::Status ApplyStep(const StorageAlignStep& step, const StepContext& ctx);  // storage_align.cc
absl::Status ApplyStep(const ComputeAtStep& step, const StepContext& ctx);    // compute_location.cc
absl::Status ApplyStep(const ComputeRootStep& step, const StepContext& ctx);  // compute_location.cc
absl::Status ApplyStep(const ComputeInlineStep& step,
                       const StepContext& ctx);                              // compute_location.cc
absl::Status ApplyStep(const CacheReadStep& step, const StepContext& ctx);   // cache_read.cc
absl::Status ApplyStep(const CacheWriteStep& step, const StepContext& ctx);  // cache_write.cc
absl::Status ApplyStep(const RfactorStep& step, const StepContext& ctx);     // rfactor.cc

// The split shared by split, follow_split and follow_fused_split: validates
// (iterator, lengths >= 1, not annotated) and replaces the iterator by
// lengths.size() + 1 children; stages attached to it move to the innermost.
absl::Status SplitIterator(const StepContext& ctx, int stage, int iter,
                           const std::vector<int64_t>& lengths, bool inner_to_outer);

}  // namespace tuneforge::schedule
