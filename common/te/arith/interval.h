// Constant bounds of integer expressions (interval arithmetic), given the
// ranges of the variables they use.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "common/te/expr.h"

namespace tuneforge::te::arith {

// Inclusive integer interval [lo, hi].
struct IntInterval {
  int64_t lo = 0;
  int64_t hi = 0;
  bool is_point() const { return lo == hi; }
};

using VarBounds = absl::flat_hash_map<const VarNode*, IntInterval>;

// Bounds of an integer or boolean expression (booleans are [0, 1] or a
// point). nullopt when some variable is unbounded or the expression is not
// integral. Vector expressions: bounds over all lanes.
std::optional<IntInterval> ConstBounds(const Expr& e, const VarBounds& vars);

// Floor division and modulo on int64 (the semantics of BinOp::kFloorDiv/Mod).
int64_t FloorDivInt(int64_t a, int64_t b);
int64_t FloorModInt(int64_t a, int64_t b);

}  // namespace tuneforge::te::arith
