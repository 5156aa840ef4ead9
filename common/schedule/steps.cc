#include "common/schedule/steps.h"

#include "common/overloaded.h"

namespace tuneforge::schedule {

const char* AnnotationName(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::kNone: return "none";
    case IterAnnotation::kUnroll: return "unroll";
    case IterAnnotation::kVectorize: return "vectorize";
    case IterAnnotation::kParallel: return "parallel";
    case IterAnnotation::kVThread: return "vthread";
    case IterAnnotation::kBlockX: return "blockIdx.x";
    case IterAnnotation::kBlockY: return "blockIdx.y";
    case IterAnnotation::kBlockZ: return "blockIdx.z";
    case IterAnnotation::kThreadX: return "threadIdx.x";
    case IterAnnotation::kThreadY: return "threadIdx.y";
    case IterAnnotation::kThreadZ: return "threadIdx.z";
  }
  return "?";
}

bool IsGpuBinding(IterAnnotation a) {
  return a == IterAnnotation::kVThread || a == IterAnnotation::kBlockX ||
         a == IterAnnotation::kBlockY || a == IterAnnotation::kBlockZ ||
         a == IterAnnotation::kThreadX || a == IterAnnotation::kThreadY ||
         a == IterAnnotation::kThreadZ;
}

bool IsThreadBinding(IterAnnotation a) {
  return a == IterAnnotation::kThreadX || a == IterAnnotation::kThreadY || a == IterAnnotation::kThreadZ;
}

const char* StepKindName(const Step& step) {
  return std::visit(Overloaded{
                        [](const SplitStep&) { return "split"; },
                        [](const FollowSplitStep&) { return "follow_split"; },
                        [](const FollowFusedSplitStep&) { return "follow_fused_split"; },
                        [](const ReorderStep&) { return "reorder"; },
                        [](const FuseStep&) { return "fuse"; },
                        [](const AnnotationStep&) { return "annotation"; },
                        [](const PragmaStep&) { return "pragma"; },
                        [](const StorageAlignStep&) { return "storage_align"; },
                        [](const ComputeAtStep&) { return "compute_at"; },
                        [](const ComputeRootStep&) { return "compute_root"; },
                        [](const ComputeInlineStep&) { return "compute_inline"; },
                        [](const CacheReadStep&) { return "cache_read"; },
                        [](const CacheWriteStep&) { return "cache_write"; },
                        [](const RfactorStep&) { return "rfactor"; },
                    },
                    step);
}

int StepStage(const Step& step) {
  return std::visit([](const auto& s) { return s.stage; }, step);
}

}  // namespace tuneforge::schedule
