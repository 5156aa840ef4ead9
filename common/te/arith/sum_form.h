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

struct SumForm {
  std::vector<SumTerm> terms;  // in order of first appearance, no zero coefs
  int64_t constant = 0;

  bool is_constant() const { return terms.empty(); }
  void AddTerm(const Expr& atom, int64_t coef);
  void Add(const SumForm& other, int64_t scale = 1);
  void Scale(int64_t factor);
  // Terms equal (same atoms, same coefficients) regardless of the constant.
  bool SameTerms(const SumForm& other) const;
};

// Decomposes a scalar integer expression (atoms are taken as they are).
SumForm ToSumForm(const Expr& e);
// Rebuilds an expression of type `dtype`: terms in order, constant last.
Expr FromSumForm(const SumForm& f, DType dtype = DType::Index());

}  // namespace tuneforge::te::arith
