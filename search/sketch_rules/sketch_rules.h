// The sketch rules (one per file in this folder) and the CPU list Ansor
// uses, in the order they are asked.
#pragma once

#include <memory>
#include <vector>

#include "search/sketch_rules/sketch_rule.h"

namespace tuneforge::search {

// Leave the stage as it is (always applies; placeholders end up here).
std::unique_ptr<SketchRule> MakeSkipStageRule();
// Inline a strictly inlinable, non-output stage into its consumers.
std::unique_ptr<SketchRule> MakeAlwaysInlineRule();
// Tile a stage with data reuse in `structure` ("SSRSRS" on CPU: four
// spatial and two reduction levels, interleaved).
std::unique_ptr<SketchRule> MakeMultiLevelTilingRule(const std::string& structure = "SSRSRS");
// The same, with the stage's single element-wise consumer tiled to match and
// the stage computed inside it, at each of `fusion_levels` (1 and 2 on CPU),
// and with `weight_vector_variants` (CPU) also with each axis along which a
// constant weight loads as vectors innermost.
std::unique_ptr<SketchRule> MakeMultiLevelTilingWithFusionRule(
    const std::string& structure = "SSRSRS", std::vector<int> fusion_levels = {1, 2},
    bool weight_vector_variants = true);
// Give a tiled stage with no element-wise consumer a local cache stage, which
// then is tiled and fused into the original (now an element-wise copy). On a
// CPU the stage without the cache is derived too; with `always` (GPU: the
// accumulators must live in registers) only the cached one.
std::unique_ptr<SketchRule> MakeAddCacheWriteRule(bool always = false);
// Pack a tiled stage's input that it reads a whole row apart per reduction
// step (B of a matmul) into a local copy, placed by annotation.
std::unique_ptr<SketchRule> MakeAddCacheReadRule();
// Factor a reduction whose spatial extent offers too little parallelism.
std::unique_ptr<SketchRule> MakeAddRfactorRule();
// GPU: a block per output of a reduction with few outputs, its threads
// sharing the reduction (partials in shared memory).
std::unique_ptr<SketchRule> MakeCrossThreadReductionRule();
// GPU: copy each input of a tiled stage into shared memory per step of its
// outermost reduction tile, fetched by all threads of the block together.
std::unique_ptr<SketchRule> MakeAddSharedCacheReadRule();

// CPU: leave a stage computed from constants alone at root untouched (the
// layout rewrite computes it once, whatever its schedule).
std::unique_ptr<SketchRule> MakePrecomputedConstantRule();
// Unroll the axes that index a constant matrix innermost and tile the rest
// in two levels (Ansor's "simplify compute with constant tensors").
std::unique_ptr<SketchRule> MakeSimplifyConstTensorRule();
// Compute a gathering stage inside its consumer's last loop before the
// unrolled constant-matrix axes (Ansor's "special compute location").
std::unique_ptr<SketchRule> MakeSpecialComputeLocationRule();
// CPU: compute a constant-matrix transform whose one consumer gathers its
// tiles (Winograd's inverse) inside that consumer, a row of tiles and a
// vector of channels at a time, instead of at root.
std::unique_ptr<SketchRule> MakeTransformAtConsumerRule();

// Ansor's CPU rules: (special compute location,) always-inline, (ours:
// precomputed constants, transform at consumer,) simplify compute with
// constant tensors, rfactor,
// cache-write, (ours: cache-read packing,) tiling with fusion, tiling, skip.
std::vector<std::unique_ptr<SketchRule>> DefaultCpuSketchRules();
// Ansor's GPU rules: shared cache reads, always-inline, cross-thread
// reduction, cache-write (always),
// SSSRRSRS tiling (blockIdx, vthread, threadIdx levels) fused at the thread
// level, tiling, skip.
std::vector<std::unique_ptr<SketchRule>> DefaultGpuSketchRules();

}  // namespace tuneforge::search
