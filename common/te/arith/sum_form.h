// Integer expressions as a sum of scaled atoms plus a constant:
// e = sum(coef_i * atom_i) + constant. Atoms are variables or any
// expression that is not +, - or multiplication by a constant (i // 4,
// min(a, b), A[i], ...). Equal atoms (structurally) are merged, so
// `i*32 + ii - i*32` becomes `ii`. The basis of simplification and of
// bound inference.
#pragma once

#include <cstdint>
#include <vector>

#include "common/te/expr.h"

namespace tuneforge::te::arith {

struct SumTerm {
  Expr atom;
  int64_t coef = 0;
};

// Coefficients and the constant wrap around on int64 overflow, so the form
// means what the expression means under the integer semantics of
// op_semantics.h (for int8 / int32 too, once reduced to their width).
struct SumForm {
  std::vector<SumTerm> terms;  // in order of first appearance, no zero coefs
  int64_t constant = 0;
  // Atoms whose coefficient became zero (x*0, x - x): a simplifier must not
  // drop an atom that might have no value (an integer division by zero).
  std::vector<Expr> dropped;

  bool is_constant() const { return terms.empty(); }
  void AddTerm(const Expr& atom, int64_t coef);
  void Add(const SumForm& other, int64_t scale = 1);
  void Scale(int64_t factor);
  // Terms equal (same atoms, same coefficients) regardless of the constant.
  bool SameTerms(const SumForm& other) const;
  // Reduces coefficients and the constant to the width of the integer type
  // `dtype` (dropping terms whose coefficient becomes zero).
  void WrapTo(DType dtype);
};

// Decomposes a scalar integer expression (atoms are taken as they are).
SumForm ToSumForm(const Expr& e);
// Rebuilds an expression of type `dtype`: terms in order, constant last
// (call WrapTo(dtype) first for a narrow type).
Expr FromSumForm(const SumForm& f, DType dtype = DType::Index());

}  // namespace tuneforge::te::arith
