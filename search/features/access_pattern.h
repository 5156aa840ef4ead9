// The buffers one Store touches and how its loops move each access: every
// index becomes a linear form over the enclosing loops (multi-dimensional
// indices are flattened with the buffer's strides first, so flat and
// unflattened programs give the same forms), from which footprints and
// cache lines are counted.
#pragma once

#include <cstdint>
#include <vector>

#include "search/features/program_walk.h"

namespace tuneforge::search::features {

// Elements the index moves per unit step of each position p: p < n is the
// site's loop p (outermost first), p == n the vector lane of the access.
// Non-linear parts are approximated: floordiv/div by a constant c scales by
// 1/c, mod is ignored, any other non-linear node (a product of loop
// variables, min, max, a load) adds the coefficients of its operands.
struct AccessIndex {
  std::vector<double> coef;  // n + 1 entries
  // Times each position's variable occurs in the index: 2 or more for a
  // fused loop split back into dimensions (floordiv and floormod).
  std::vector<int> occurrences;  // n + 1 entries
};

struct BufferAccess {
  const te::BufferNode* buffer = nullptr;
  bool read = false;
  bool write = false;
  int accesses = 0;       // element accesses per execution and lane: reads + writes
  double elem_bytes = 0;  // bytes of one element
  std::vector<AccessIndex> indices;  // one per access, duplicates dropped
};

struct StoreAccesses {
  // n + 1 extents: the loops' extents, then the lanes of the stored value.
  std::vector<int64_t> extents;
  // The written buffer first, then the read buffers in order of first read.
  std::vector<BufferAccess> buffers;

  int num_loops() const { return static_cast<int>(extents.size()) - 1; }
  const AccessIndex& output_index() const { return buffers[0].indices[0]; }
};

StoreAccesses AnalyzeAccesses(const StoreSite& site, const ProgramWalk& walk);

// Distinct elements `index` touches while the positions >= level run
// (level 0: the whole nest; level n: one execution of the store). Exact for
// box-shaped tiles; an upper bound otherwise (see footprint.cc).
double DistinctElements(const AccessIndex& index, const std::vector<int64_t>& extents, int level);
// Distinct cache lines of `elems_per_line` elements among those.
double DistinctLines(const AccessIndex& index, const std::vector<int64_t>& extents, int level,
                     double elems_per_line);

// The footprint of a buffer (the largest of its indices', as they overlap).
double BufferElements(const BufferAccess& b, const std::vector<int64_t>& extents, int level);
double BufferLines(const BufferAccess& b, const std::vector<int64_t>& extents, int level);

inline constexpr double kCacheLineBytes = 64;

}  // namespace tuneforge::search::features
