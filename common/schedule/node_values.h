// How a stage's loop variables map back to its op's axes, through the
// split and fuse relations of its iterator graph.
#pragma once

#include <vector>

#include "common/schedule/state.h"
#include "common/te/expr.h"

namespace tuneforge::schedule {

// Given an expression for every leaf node (the loop variable of each
// current iterator; entries of non-leaf nodes are ignored), returns an
// expression for every node: the value of the op's axis i is result[i].
std::vector<te::Expr> NodeValues(const Stage& stage, const std::vector<te::Expr>& leaf_values);

// Conditions that keep non-divisible splits in range: one `value(parent) <
// extent(parent)` per split whose children span more than the parent. With
// `spatial_only`, splits of reduction nodes are skipped (reduction init).
std::vector<te::Expr> SplitGuards(const Stage& stage, const std::vector<te::Expr>& values,
                                  bool spatial_only = false);

// Recomputes the extents of split remainders and fused nodes after the
// extents of root nodes changed.
void RecomputeDerivedExtents(Stage* stage);

}  // namespace tuneforge::schedule
