// Small predicates the pattern-rewriting passes (fuse_gelu, fuse_layer_norm)
// share to read the graph around a node.
#pragma once

#include <optional>

#include "graph/ir/graph.h"

namespace tuneforge::graph {

// Whether `v` is a one-element constant equal to `want` (relative 1e-4).
bool IsScalar(const Graph& g, ValueId v, double want);
// The one-element constant's value, or nullopt.
std::optional<double> ScalarValue(const Graph& g, ValueId v);
// `n`'s op when it is a binary op of `kind`, else null.
const Binary* AsBinary(const Node& n, BinaryKind kind);
// The operand of a binary node that is not `known`, or nullopt.
std::optional<ValueId> Other(const Node& n, ValueId known);
// The one node reading `v`, when exactly one does and `v` is no graph
// output; else -1.
int SoleConsumer(const Graph& g, ValueId v);

}  // namespace tuneforge::graph
