#include "common/te/arith/value_under.h"

#include "common/overloaded.h"

namespace tuneforge::te::arith {

std::optional<Scalar> ValueUnder(const Expr& e, const VarMap& values) {
  if (e.dtype().lanes != 1) return std::nullopt;
  return std::visit(
      Overloaded{
          [&](const IntImm&) { return ConstantValue(e); },
          [&](const FloatImm&) { return ConstantValue(e); },
          [&](const VarRef& n) -> std::optional<Scalar> {
            auto it = values.find(n.var.get());
            if (it == values.end()) return std::nullopt;
            std::optional<Scalar> v = ConstantValue(it->second);
            if (!v || it->second.dtype() == e.dtype()) return v;
            return Convert(*v, it->second.dtype(), e.dtype());
          },
          [&](const Binary& n) -> std::optional<Scalar> {
            const DType operand = n.a.dtype();
            std::optional<Scalar> a = ValueUnder(n.a, values);
            if (BinOpClass(n.op) == OpClass::kLogical && a) {
              // false && x, true || x: decided without x.
              const bool truthy = Truthy(operand, *a);
              if ((n.op == BinOp::kAnd && !truthy) || (n.op == BinOp::kOr && truthy))
                return Scalar{truthy ? 1 : 0, 0};
            }
            if (!a) return std::nullopt;
            std::optional<Scalar> b = ValueUnder(n.b, values);
            if (!b || n.b.dtype() != operand) return std::nullopt;
            return ApplyBinary(n.op, operand, *a, *b);
          },
          [&](const Not& n) -> std::optional<Scalar> {
            std::optional<Scalar> a = ValueUnder(n.a, values);
            if (!a) return std::nullopt;
            return Scalar{Truthy(n.a.dtype(), *a) ? 0 : 1, 0};
          },
          [&](const Select& n) -> std::optional<Scalar> {
            std::optional<Scalar> c = ValueUnder(n.cond, values);
            if (!c) return std::nullopt;
            const Expr& taken = Truthy(n.cond.dtype(), *c) ? n.true_value : n.false_value;
            if (taken.dtype() != e.dtype()) return std::nullopt;
            return ValueUnder(taken, values);
          },
          [&](const Cast& n) -> std::optional<Scalar> {
            std::optional<Scalar> v = ValueUnder(n.value, values);
            if (!v) return std::nullopt;
            return Convert(*v, n.value.dtype(), e.dtype());
          },
          [&](const auto&) -> std::optional<Scalar> { return std::nullopt; },
      },
      e.get()->v);
}

}  // namespace tuneforge::te::arith
