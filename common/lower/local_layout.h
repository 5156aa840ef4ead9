// The layout of a local buffer: the order in which it stores its region's
// dimensions. The dimension the innermost loop walks goes last, so that the
// loop's accesses are contiguous and vectorize: a conv's accumulator tile
// with the output channel innermost is stored [h][w][k], and a weight copy
// the tile reads along k (W[k, c, r, s]) is stored [c][r][s][k]. Packed
// weights (hoist_constants.h) inherit it, so the layout rewrite puts a
// weight's elements in the order the register tile reads them.
#pragma once

#include <vector>

#include "common/lower/lower_context.h"

namespace tuneforge::lower {

// For stage s's local buffer: the region dimension stored at each position,
// outermost first; empty where the buffer keeps the tensor's order (kernel
// arguments, one-dimensional or aligned buffers, GPU code, and wherever the
// loops already walk the tensor's order). Needs ctx's vars, regions and
// bodies.
std::vector<int> LocalDimOrder(const LowerContext& ctx, int s);

}  // namespace tuneforge::lower
