#include "common/te/arith/sum_form.h"

#include <vector>

#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te::arith {

void SumForm::AddTerm(const Expr& atom, int64_t coef) {
  if (coef == 0) {
    dropped.push_back(atom);
    return;
  }
  if (const int64_t* c = AsIntConst(atom)) {
    constant = WrapAdd(constant, WrapMul(coef, *c));
    return;
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    if (StructurallyEqual(terms[i].atom, atom)) {
      terms[i].coef = WrapAdd(terms[i].coef, coef);
      if (terms[i].coef == 0) {
        dropped.push_back(atom);
        terms.erase(terms.begin() + static_cast<long>(i));
      }
      return;
    }
  }
  terms.push_back({atom, coef});
}

void SumForm::Add(const SumForm& other, int64_t scale) {
  for (const SumTerm& t : other.terms) AddTerm(t.atom, WrapMul(t.coef, scale));
  dropped.insert(dropped.end(), other.dropped.begin(), other.dropped.end());
  constant = WrapAdd(constant, WrapMul(other.constant, scale));
}

void SumForm::Scale(int64_t factor) {
  if (factor == 0) {
    for (const SumTerm& t : terms) dropped.push_back(t.atom);
    terms.clear();
    constant = 0;
    return;
  }
  for (SumTerm& t : terms) t.coef = WrapMul(t.coef, factor);
  constant = WrapMul(constant, factor);
}

void SumForm::WrapTo(DType dtype) {
  if (dtype.bits() >= 64) return;  // int64 already wraps at its width
  auto wrap = [&](int64_t v) { return Normalize(dtype.element(), Scalar{v, 0}).i; };
  constant = wrap(constant);
  std::erase_if(terms, [&](SumTerm& t) {
    t.coef = wrap(t.coef);
    if (t.coef == 0) dropped.push_back(t.atom);
    return t.coef == 0;
  });
}

bool SumForm::SameTerms(const SumForm& other) const {
  if (terms.size() != other.terms.size()) return false;
  for (const SumTerm& t : terms) {
    bool found = false;
    for (const SumTerm& u : other.terms) {
      if (t.coef == u.coef && StructurallyEqual(t.atom, u.atom)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

namespace {

void Collect(const Expr& e, int64_t scale, SumForm* out) {
  if (const int64_t* c = AsIntConst(e)) {
    out->constant = WrapAdd(out->constant, WrapMul(scale, *c));
    return;
  }
  if (const auto* b = e.as<Binary>(); b && !e.dtype().is_vector()) {
    switch (b->op) {
      case BinOp::kAdd:
        Collect(b->a, scale, out);
        Collect(b->b, scale, out);
        return;
      case BinOp::kSub:
        Collect(b->a, scale, out);
        Collect(b->b, WrapSub(0, scale), out);
        return;
      case BinOp::kMul:
        if (const int64_t* c = AsIntConst(b->b)) {
          Collect(b->a, WrapMul(scale, *c), out);
          return;
        }
        if (const int64_t* c = AsIntConst(b->a)) {
          Collect(b->b, WrapMul(scale, *c), out);
          return;
        }
        break;
      default:
        break;
    }
  }
  out->AddTerm(e, scale);
}

}  // namespace

SumForm ToSumForm(const Expr& e) {
  SumForm f;
  Collect(e, 1, &f);
  return f;
}

Expr FromSumForm(const SumForm& f, DType dtype) {
  Expr out;
  auto scaled = [&](const SumTerm& t, int64_t coef) {
    Expr atom = MakeCast(dtype, t.atom);
    return coef == 1 ? atom : MakeBinary(BinOp::kMul, atom, IntConst(coef, dtype));
  };
  // A negative coefficient is subtracted (so "a - b" prints as such), unless
  // negating it wraps (the type's minimum): then it is added as it is.
  auto subtracted = [&](int64_t coef) {
    return coef < 0 && Normalize(dtype.element(), Scalar{WrapSub(0, coef), 0}).i > 0;
  };
  // Positive terms first.
  for (const SumTerm& t : f.terms) {
    if (subtracted(t.coef)) continue;
    out = out ? MakeBinary(BinOp::kAdd, out, scaled(t, t.coef)) : scaled(t, t.coef);
  }
  for (const SumTerm& t : f.terms) {
    if (!subtracted(t.coef)) continue;
    out = out ? MakeBinary(BinOp::kSub, out, scaled(t, -t.coef)) : scaled(t, t.coef);
  }
  if (!out) return IntConst(f.constant, dtype);
  if (subtracted(f.constant)) return MakeBinary(BinOp::kSub, out, IntConst(-f.constant, dtype));
  if (f.constant != 0) return MakeBinary(BinOp::kAdd, out, IntConst(f.constant, dtype));
  return out;
}

}  // namespace tuneforge::te::arith
