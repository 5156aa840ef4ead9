// Generic traversal, rewriting and printing of expressions.
#pragma once

#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "common/te/expr.h"

namespace tuneforge::te {

// Calls fn on each direct child of e (Reduce: source, then condition).
// A template, not a std::function: recursive walks call it once a node, and
// the std::function's dispatch was a tenth of the search's time.
template <class F>
void ForEachChild(const Expr& e, F&& fn);
// Every node of e, children before parents.
void PostOrderVisit(const Expr& e, const std::function<void(const Expr&)>& fn);
// Nodes in e, counted as PostOrderVisit meets them (a shared subexpression
// once per use).
int64_t CountNodes(const Expr& e);
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

template <class F>
void ForEachChild(const Expr& e, F&& fn) {
  const ExprVariant& v = e->v;
  if (const auto* n = std::get_if<Binary>(&v)) {
    fn(n->a);
    fn(n->b);
  } else if (const auto* n = std::get_if<BufferLoad>(&v)) {
    for (const Expr& a : n->indices) fn(a);
  } else if (const auto* n = std::get_if<Ramp>(&v)) {
    fn(n->base);
  } else if (const auto* n = std::get_if<Broadcast>(&v)) {
    fn(n->value);
  } else if (const auto* n = std::get_if<Select>(&v)) {
    fn(n->cond);
    fn(n->true_value);
    fn(n->false_value);
  } else if (const auto* n = std::get_if<Cast>(&v)) {
    fn(n->value);
  } else if (const auto* n = std::get_if<Not>(&v)) {
    fn(n->a);
  } else if (const auto* n = std::get_if<Call>(&v)) {
    for (const Expr& a : n->args) fn(a);
  } else if (const auto* n = std::get_if<TensorRead>(&v)) {
    for (const Expr& a : n->indices) fn(a);
  } else if (const auto* n = std::get_if<Reduce>(&v)) {
    fn(n->source);
    if (n->condition) fn(n->condition);
  }
  // IntImm, FloatImm, VarRef: leaves.
}

}  // namespace tuneforge::te
