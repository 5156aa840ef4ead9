// Generic traversal, rewriting and printing of expressions.
#pragma once

#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "common/te/expr.h"

namespace tuneforge::te {

// Calls fn on each direct child of e (Reduce: source, then condition).
void ForEachChild(const Expr& e, const std::function<void(const Expr&)>& fn);
// Every node of e, children before parents.
void PostOrderVisit(const Expr& e, const std::function<void(const Expr&)>& fn);
// e with each direct child c replaced by fn(c); e itself when no child
// changed. Types are recomputed (a child that became a vector makes the
// parent a vector).
Expr MapChildren(const Expr& e, const std::function<Expr(const Expr&)>& fn);

using VarMap = absl::flat_hash_map<const VarNode*, Expr>;
// Replaces variables by expressions.
Expr Substitute(const Expr& e, const VarMap& map);
// Replaces every TensorRead for which fn returns a non-null Expr.
Expr ReplaceReads(const Expr& e, const std::function<Expr(const TensorRead&, const Expr&)>& fn);
bool UsesVar(const Expr& e, const VarNode* var);

// Same node kinds, types, constants, variables (by identity) and tensors
// (by identity) everywhere.
bool StructurallyEqual(const Expr& a, const Expr& b);

// Readable, fully parenthesized where needed: "A[i, k]*B[k, j]".
std::string ToString(const Expr& e);

}  // namespace tuneforge::te
