#include "common/te/arith/sum_form.h"

#include "common/te/expr_util.h"

namespace tuneforge::te::arith {

void SumForm::AddTerm(const Expr& atom, int64_t coef) {
  if (coef == 0) return;
  if (const int64_t* c = AsIntConst(atom)) {
    constant += coef * *c;
    return;
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    if (StructurallyEqual(terms[i].atom, atom)) {
      terms[i].coef += coef;
      if (terms[i].coef == 0) terms.erase(terms.begin() + static_cast<long>(i));
      return;
    }
  }
  terms.push_back({atom, coef});
}

void SumForm::Add(const SumForm& other, int64_t scale) {
  for (const SumTerm& t : other.terms) AddTerm(t.atom, t.coef * scale);
  constant += other.constant * scale;
}

void SumForm::Scale(int64_t factor) {
  if (factor == 0) {
    terms.clear();
    constant = 0;
    return;
  }
  for (SumTerm& t : terms) t.coef *= factor;
  constant *= factor;
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
    out->constant += scale * *c;
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
        Collect(b->b, -scale, out);
        return;
      case BinOp::kMul:
        if (const int64_t* c = AsIntConst(b->b)) {
          Collect(b->a, scale * *c, out);
          return;
        }
        if (const int64_t* c = AsIntConst(b->a)) {
          Collect(b->b, scale * *c, out);
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
  // Positive terms first so that "a - b" prints as such.
  for (const SumTerm& t : f.terms) {
    if (t.coef <= 0) continue;
    out = out ? MakeBinary(BinOp::kAdd, out, scaled(t, t.coef)) : scaled(t, t.coef);
  }
  for (const SumTerm& t : f.terms) {
    if (t.coef >= 0) continue;
    out = out ? MakeBinary(BinOp::kSub, out, scaled(t, -t.coef)) : scaled(t, t.coef);
  }
  if (!out) return IntConst(f.constant, dtype);
  if (f.constant > 0) return MakeBinary(BinOp::kAdd, out, IntConst(f.constant, dtype));
  if (f.constant < 0) return MakeBinary(BinOp::kSub, out, IntConst(-f.constant, dtype));
  return out;
}

}  // namespace tuneforge::te::arith
