// Small helpers that the op builders share to write index expressions the
// way a person would (no "*1", no "+0"), so that an op built here and the
// same op written in the definition language print — and hash — the same.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/te/expr.h"
#include "common/te/tensor.h"

namespace tuneforge::te::ops {

// A loop axis over [0, extent) with a readable name.
IterVar Axis(std::string name, int64_t extent);
// Axes named and sized from {name, extent} pairs, outermost first.
std::vector<IterVar> Axes(const std::vector<std::pair<std::string, int64_t>>& named_extents);
// The axes' variables as expressions, for reads indexed by all of them.
std::vector<Expr> AxisExprs(const std::vector<IterVar>& axes);

// base * scale + offset, leaving out a unit scale and a zero offset; a
// negative offset is written as a subtraction ("h - 1").
Expr Affine(const Expr& base, int64_t scale, int64_t offset);
// Input position of a sliding window: out * stride + window * dilation.
Expr WindowIndex(const Var& out, int64_t stride, const Var& window, int64_t dilation);
// acc && term, or term when acc is empty: folds bounds checks left to right.
Expr Conjoin(const Expr& acc, const Expr& term);

// Readable axis names for a stage that iterates over `t`'s shape: a compute
// op's own axis names, else i0, i1, ...
std::vector<std::string> AxisNamesOf(const Tensor& t);

}  // namespace tuneforge::te::ops
