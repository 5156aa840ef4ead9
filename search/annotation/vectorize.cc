// Vectorize: the innermost spatial loops of each stage, fused into one
// loop, become vector code. The innermost loop alone may have up to
// hw.max_vectorize_extent iterations; fused with loops around it, at most
// hw.vector_lanes (one register): a fused loop is usually not contiguous in
// memory, and its lanes become gathers, which LLVM turns into one branch
// per lane where they are masked (padding) — a 56-lane one took minutes to
// compile.
#include "search/annotation/annotation.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {

void AnnotateVectorize(schedule::State* state, const HardwareParams& hw, Rng& rng) {
  for (int s = 0; s < state->num_stages(); ++s) {
    const schedule::Stage& st = state->stage(s);
    if (st.is_placeholder() || IsInlined(*state, s) || IsPrecomputedConstant(*state, s)) continue;
    const int n = static_cast<int>(st.iters.size());
    int count = 0;
    int64_t product = 1;
    for (int i = n - 1; i >= 0; --i) {
      const int64_t extent = st.iter_node(i).extent;
      if (st.iter_node(i).kind != schedule::IterKind::kSpatial ||
          st.iters[i].annotation != schedule::IterAnnotation::kNone ||
          HasAttachedStages(*state, s, i) ||
          product * extent > (i == n - 1 ? hw.max_vectorize_extent : hw.vector_lanes))
        break;
      product *= extent;
      ++count;
    }
    if (count == 0) continue;
    // A loop of extent 1 under these tile sizes is marked too (a no-op
    // while its extent is 1): a tile-size mutation may grow it later, and
    // the program it grows into must be vector code. Unmarked, such
    // programs stayed scalar for good, their lanes left to LLVM's SLP
    // vectorizer: most of a 300-trial conv tuning's programs, whose vector
    // twins ran 1.11x faster (geometric mean of its ten best scalar ones).
    const int take = product <= 1 ? 1 : std::uniform_int_distribution<int>(1, count)(rng);
    std::vector<int> iters;
    for (int i = n - take; i < n; ++i) iters.push_back(i);
    schedule::State next = *state;
    if (take > 1 && !next.Apply(schedule::FuseStep{s, iters}).ok()) continue;
    if (!next.Apply(schedule::AnnotationStep{s, n - take, schedule::IterAnnotation::kVectorize}).ok())
      continue;
    *state = std::move(next);
  }
}

}  // namespace tuneforge::search
