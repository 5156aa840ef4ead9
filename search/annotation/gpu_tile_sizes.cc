// Fill tile sizes on a GPU: the splits of SSSRRSRS tiling are drawn within
// per-stage budgets, so that a sampled program fits a block: the thread
// level's lengths multiply to at most hw.max_threads_per_block over the
// stage's axes, the vthread level's to hw.max_vthread_extent, the two
// register levels' to hw.max_local_tile accumulators per thread, and the
// inner reduction levels' to hw.max_reduction_tile (the depth of one
// shared-memory fetch). Axes draw in turn from what the others left. A
// cross-thread reduction's split draws its threads (up to
// hw.default_threads_per_block).
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "search/annotation/annotation.h"
#include "search/annotation/tile_lengths.h"

namespace tuneforge::search {
namespace {

struct TileBudget {
  int64_t vthreads, threads, local, reduction;
};

// A random divisor of `left` no larger than `cap` (1 always qualifies).
int64_t DrawDivisor(int64_t left, int64_t cap, Rng& rng) {
  std::vector<int64_t> choices = Divisors(std::max<int64_t>(left, 1));
  while (choices.size() > 1 && choices.back() > cap) choices.pop_back();
  return choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
}

// Lengths [S1 vthread, S2 thread, S3, S4 registers] of a spatial axis,
// innermost first: the registers, then the threads, then the vthreads.
std::vector<int64_t> DrawSpatialLevels(int64_t extent, TileBudget& b, const HardwareParams& hw, Rng& rng) {
  std::vector<int64_t> lengths(4, 1);
  int64_t left = extent;
  auto draw = [&](int level, int64_t cap, int64_t& budget) {
    lengths[level] = DrawDivisor(left, cap, rng);
    left /= lengths[level];
    budget /= lengths[level];
  };
  draw(3, std::min(b.local, hw.max_innermost_split_factor), b.local);
  draw(2, b.local, b.local);
  draw(1, b.threads, b.threads);
  draw(0, b.vthreads, b.vthreads);
  return lengths;
}

// Lengths [R1, R2] of a reduction axis.
std::vector<int64_t> DrawReductionLevels(int64_t extent, TileBudget& b, const HardwareParams& hw, Rng& rng) {
  std::vector<int64_t> lengths(2, 1);
  int64_t left = extent;
  for (int i = 1; i >= 0; --i) {
    const int64_t cap = i == 1 ? std::min(b.reduction, hw.max_innermost_split_factor) : b.reduction;
    lengths[i] = DrawDivisor(left, cap, rng);
    left /= lengths[i];
    b.reduction /= lengths[i];
  }
  return lengths;
}

}  // namespace

absl::StatusOr<schedule::State> FillGpuTileSizes(const schedule::State& sketch, const HardwareParams& hw,
                                                 Rng& rng) {
  schedule::State state(sketch.original_dag());
  absl::flat_hash_map<std::string, TileBudget> budgets;
  for (const schedule::Step& step : sketch.steps()) {
    schedule::Step filled = step;
    if (auto* split = std::get_if<schedule::SplitStep>(&filled)) {
      const schedule::Stage& st = state.stage(split->stage);
      const schedule::IterNode& node = st.iter_node(split->iter);
      TileBudget& b = budgets.try_emplace(st.op->name, TileBudget{hw.max_vthread_extent, hw.max_threads_per_block,
                                                                  hw.max_local_tile, hw.max_reduction_tile})
                          .first->second;
      const size_t n = split->lengths.size();
      if (node.kind == schedule::IterKind::kSpatial && n == 4) {
        split->lengths = DrawSpatialLevels(node.extent, b, hw, rng);
      } else if (node.kind == schedule::IterKind::kReduce && n == 2) {
        split->lengths = DrawReductionLevels(node.extent, b, hw, rng);
      } else if (node.kind == schedule::IterKind::kReduce && n == 1) {
        // A cross-thread reduction's threads.
        split->lengths = {DrawDivisor(node.extent, hw.default_threads_per_block, rng)};
      } else {
        split->lengths = RandomTileLengths(node.extent, static_cast<int>(n), hw.max_innermost_split_factor, rng);
      }
    }
    if (absl::Status s = state.Apply(filled); !s.ok())
      return absl::InternalError(absl::StrCat("filling GPU tile sizes: ", s.message()));
  }
  return state;
}

}  // namespace tuneforge::search
