#include "common/te/expr_util.h"

#include <cmath>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/overloaded.h"
#include "common/te/buffer.h"
#include "common/te/tensor.h"

namespace tuneforge::te {

void PostOrderVisit(const Expr& e, const std::function<void(const Expr&)>& fn) {
  ForEachChild(e, [&](const Expr& c) { PostOrderVisit(c, fn); });
  fn(e);
}

int64_t CountNodes(const Expr& e) {
  int64_t n = 1;
  ForEachChild(e, [&](const Expr& c) { n += CountNodes(c); });
  return n;
}

namespace {

// Maps a list; `changed` is set when any element differs.
std::vector<Expr> MapList(const std::vector<Expr>& in, const std::function<Expr(const Expr&)>& fn,
                          bool* changed) {
  std::vector<Expr> out;
  out.reserve(in.size());
  for (const Expr& x : in) {
    out.push_back(fn(x));
    if (!out.back().same_as(x)) *changed = true;
  }
  return out;
}

int IndexLanes(const std::vector<Expr>& idx) {
  int lanes = 1;
  for (const Expr& i : idx) lanes = std::max(lanes, i.dtype().lanes);
  return lanes;
}

}  // namespace

Expr MapChildren(const Expr& e, const std::function<Expr(const Expr&)>& fn) {
  return std::visit(
      Overloaded{
          [&](const IntImm&) { return e; }, [&](const FloatImm&) { return e; },
          [&](const VarRef&) { return e; },
          [&](const Binary& n) {
            Expr a = fn(n.a), b = fn(n.b);
            if (a.same_as(n.a) && b.same_as(n.b)) return e;
            return MakeBinary(n.op, a, b);
          },
          [&](const Not& n) {
            Expr a = fn(n.a);
            return a.same_as(n.a) ? e : MakeNot(a);
          },
          [&](const Select& n) {
            Expr c = fn(n.cond), t = fn(n.true_value), f = fn(n.false_value);
            if (c.same_as(n.cond) && t.same_as(n.true_value) && f.same_as(n.false_value)) return e;
            int lanes = std::max({c.dtype().lanes, t.dtype().lanes, f.dtype().lanes});
            if (lanes > 1) {
              if (c.dtype().lanes == 1) c = MakeBroadcast(c, lanes);
              if (t.dtype().lanes == 1) t = MakeBroadcast(t, lanes);
              if (f.dtype().lanes == 1) f = MakeBroadcast(f, lanes);
            }
            return MakeSelect(c, t, f);
          },
          [&](const Cast& n) {
            Expr v = fn(n.value);
            if (v.same_as(n.value)) return e;
            return MakeCast(e.dtype().with_lanes(v.dtype().lanes), v);
          },
          [&](const Call& n) {
            bool changed = false;
            std::vector<Expr> args = MapList(n.args, fn, &changed);
            if (!changed) return e;
            int lanes = IndexLanes(args);
            for (Expr& a : args)
              if (lanes > 1 && a.dtype().lanes == 1) a = MakeBroadcast(a, lanes);
            return MakeCall(n.fn, std::move(args));
          },
          [&](const TensorRead& n) {
            bool changed = false;
            std::vector<Expr> idx = MapList(n.indices, fn, &changed);
            if (!changed) return e;
            return MakeTensorRead(n.tensor, std::move(idx));
          },
          [&](const Reduce& n) {
            Expr s = fn(n.source);
            Expr c = n.condition ? fn(n.condition) : Expr();
            if (s.same_as(n.source) && c.same_as(n.condition)) return e;
            return MakeReduce(n.combiner, s, n.axes, c);
          },
          [&](const BufferLoad& n) {
            bool changed = false;
            std::vector<Expr> idx = MapList(n.indices, fn, &changed);
            if (!changed) return e;
            int lanes = IndexLanes(idx);
            return MakeBufferLoad(n.buffer, std::move(idx), e.dtype().with_lanes(lanes));
          },
          [&](const Ramp& n) {
            Expr b = fn(n.base);
            return b.same_as(n.base) ? e : MakeRamp(b, n.stride, n.lanes);
          },
          [&](const Broadcast& n) {
            Expr v = fn(n.value);
            return v.same_as(n.value) ? e : MakeBroadcast(v, n.lanes);
          },
      },
      e->v);
}

Expr Substitute(const Expr& e, const VarMap& map) {
  if (map.empty()) return e;
  std::function<Expr(const Expr&)> rec = [&](const Expr& x) -> Expr {
    if (const auto* v = x.as<VarRef>()) {
      auto it = map.find(v->var.get());
      return it == map.end() ? x : it->second;
    }
    return MapChildren(x, rec);
  };
  return rec(e);
}

Expr ReplaceReads(const Expr& e, const std::function<Expr(const TensorRead&, const Expr&)>& fn) {
  std::function<Expr(const Expr&)> rec = [&](const Expr& x) -> Expr {
    Expr y = MapChildren(x, rec);
    if (const auto* r = y.as<TensorRead>()) {
      Expr replaced = fn(*r, y);
      if (replaced) return replaced;
    }
    return y;
  };
  return rec(e);
}

bool UsesVar(const Expr& e, const VarNode* var) {
  if (const auto* v = e.as<VarRef>()) return v->var.get() == var;
  bool found = false;
  ForEachChild(e, [&](const Expr& c) { found = found || UsesVar(c, var); });
  return found;
}

namespace {

bool ListEqual(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!StructurallyEqual(a[i], b[i])) return false;
  return true;
}

}  // namespace

bool StructurallyEqual(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b) return false;
  if (a.dtype() != b.dtype() || a->v.index() != b->v.index()) return false;
  return std::visit(
      Overloaded{
          [&](const IntImm& x) { return x.value == b.as<IntImm>()->value; },
          [&](const FloatImm& x) {
            double y = b.as<FloatImm>()->value;
            // -0 and +0 are different constants (1 / x tells them apart).
            return (x.value == y && std::signbit(x.value) == std::signbit(y)) ||
                   (std::isnan(x.value) && std::isnan(y));
          },
          [&](const VarRef& x) { return x.var == b.as<VarRef>()->var; },
          [&](const Binary& x) {
            const auto& y = *b.as<Binary>();
            return x.op == y.op && StructurallyEqual(x.a, y.a) && StructurallyEqual(x.b, y.b);
          },
          [&](const Not& x) { return StructurallyEqual(x.a, b.as<Not>()->a); },
          [&](const Select& x) {
            const auto& y = *b.as<Select>();
            return StructurallyEqual(x.cond, y.cond) &&
                   StructurallyEqual(x.true_value, y.true_value) &&
                   StructurallyEqual(x.false_value, y.false_value);
          },
          [&](const Cast& x) { return StructurallyEqual(x.value, b.as<Cast>()->value); },
          [&](const Call& x) {
            const auto& y = *b.as<Call>();
            return x.fn == y.fn && ListEqual(x.args, y.args);
          },
          [&](const TensorRead& x) {
            const auto& y = *b.as<TensorRead>();
            return x.tensor == y.tensor && ListEqual(x.indices, y.indices);
          },
          [&](const Reduce& x) {
            const auto& y = *b.as<Reduce>();
            if (x.combiner != y.combiner || x.axes.size() != y.axes.size()) return false;
            for (size_t i = 0; i < x.axes.size(); ++i)
              if (x.axes[i].var != y.axes[i].var || x.axes[i].extent != y.axes[i].extent)
                return false;
            return StructurallyEqual(x.source, y.source) &&
                   (x.condition ? StructurallyEqual(x.condition, y.condition) : !y.condition);
          },
          [&](const BufferLoad& x) {
            const auto& y = *b.as<BufferLoad>();
            return x.buffer == y.buffer && ListEqual(x.indices, y.indices);
          },
          [&](const Ramp& x) {
            const auto& y = *b.as<Ramp>();
            return x.stride == y.stride && x.lanes == y.lanes && StructurallyEqual(x.base, y.base);
          },
          [&](const Broadcast& x) {
            const auto& y = *b.as<Broadcast>();
            return x.lanes == y.lanes && StructurallyEqual(x.value, y.value);
          },
      },
      a->v);
}

namespace {

std::string FloatText(double v, DType t) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(t.scalar == ScalarType::kFloat64 ? 17 : 9);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (t.scalar == ScalarType::kFloat64) s += "d";
  return s;
}

std::string JoinExprs(const std::vector<Expr>& xs) {
  return absl::StrJoin(xs, ", ", [](std::string* out, const Expr& x) { out->append(ToString(x)); });
}

}  // namespace

std::string ToString(const Expr& e) {
  if (!e) return "<null>";
  return std::visit(
      Overloaded{
          [&](const IntImm& n) -> std::string {
            if (e.dtype().is_bool()) return n.value ? "true" : "false";
            return absl::StrCat(n.value);
          },
          [&](const FloatImm& n) -> std::string { return FloatText(n.value, e.dtype()); },
          [&](const VarRef& n) -> std::string { return n.var->name; },
          [&](const Binary& n) -> std::string {
            if (n.op == BinOp::kMin || n.op == BinOp::kMax)
              return absl::StrCat(BinOpSymbol(n.op), "(", ToString(n.a), ", ", ToString(n.b), ")");
            if (n.op == BinOp::kFloorDiv || n.op == BinOp::kFloorMod)
              return absl::StrCat(n.op == BinOp::kFloorDiv ? "floordiv(" : "floormod(",
                                  ToString(n.a), ", ", ToString(n.b), ")");
            return absl::StrCat("(", ToString(n.a), " ", BinOpSymbol(n.op), " ", ToString(n.b), ")");
          },
          [&](const Not& n) -> std::string { return absl::StrCat("!", ToString(n.a)); },
          [&](const Select& n) -> std::string {
            return absl::StrCat("select(", ToString(n.cond), ", ", ToString(n.true_value), ", ",
                                ToString(n.false_value), ")");
          },
          [&](const Cast& n) -> std::string {
            return absl::StrCat(te::ToString(e.dtype()), "(", ToString(n.value), ")");
          },
          [&](const Call& n) -> std::string {
            return absl::StrCat(IntrinsicName(n.fn), "(", JoinExprs(n.args), ")");
          },
          [&](const TensorRead& n) -> std::string {
            return absl::StrCat(n.tensor->name, "[", JoinExprs(n.indices), "]");
          },
          [&](const Reduce& n) -> std::string {
            std::string axes = absl::StrJoin(n.axes, ", ", [](std::string* out, const IterVar& a) {
              absl::StrAppend(out, a.var->name, ":", a.extent);
            });
            std::string s = absl::StrCat(CombinerName(n.combiner), "(", ToString(n.source),
                                         ", axis=[", axes, "]");
            if (n.condition) absl::StrAppend(&s, ", where=", ToString(n.condition));
            return s + ")";
          },
          [&](const BufferLoad& n) -> std::string {
            return absl::StrCat(n.buffer->name, "[", JoinExprs(n.indices), "]");
          },
          [&](const Ramp& n) -> std::string {
            return absl::StrCat("ramp(", ToString(n.base), ", ", n.stride, ", ", n.lanes, ")");
          },
          [&](const Broadcast& n) -> std::string {
            return absl::StrCat("x", n.lanes, "(", ToString(n.value), ")");
          },
      },
      e->v);
}

}  // namespace tuneforge::te
