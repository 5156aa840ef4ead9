#include "common/te/definition/expr_builder.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/overloaded.h"
#include "common/te/definition/functions.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te::definition {
namespace {

constexpr int64_t kMaxExtent = int64_t{1} << 31;

bool IsConstant(const Expr& e) { return e.as<IntImm>() || e.as<FloatImm>(); }

absl::Status RequireNumber(const Expr& e, Pos pos, absl::string_view what) {
  if (!e.dtype().is_bool()) return absl::OkStatus();
  return ErrorAt(pos, absl::StrCat(what, " needs a number, got a condition (bool); turn it into a "
                                         "number with select(condition, 1.0, 0.0)"));
}

absl::Status RequireCondition(const Expr& e, Pos pos, absl::string_view what) {
  if (e.dtype().is_bool()) return absl::OkStatus();
  return ErrorAt(pos, absl::StrCat(what, " must be a condition (a comparison like i < 4), got ",
                                   ToString(e.dtype())));
}

absl::Status RequireInteger(const Expr& e, Pos pos, absl::string_view what) {
  if (e.dtype().is_int()) return absl::OkStatus();
  return ErrorAt(pos, absl::StrCat("type mismatch: ", what, " must be an integer, got ",
                                   e.dtype().is_bool() ? "a condition" : ToString(e.dtype()),
                                   " (convert with int64(...), or use // for division)"));
}

absl::Status RequireFloat(const Expr& e, Pos pos, absl::string_view fn) {
  if (e.dtype().is_float()) return absl::OkStatus();
  return ErrorAt(pos, absl::StrCat("type mismatch: '", fn, "' needs a float argument, got ",
                                   e.dtype().is_bool() ? "a condition" : ToString(e.dtype()),
                                   "; convert it with float32(...)"));
}

// Two operands of one operation: numbers whose types can meet.
absl::Status RequireCompatible(const Expr& a, const Expr& b, Pos pos, absl::string_view op) {
  if (auto s = RequireNumber(a, pos, op); !s.ok()) return s;
  if (auto s = RequireNumber(b, pos, op); !s.ok()) return s;
  if (IsConstant(a) || IsConstant(b)) return absl::OkStatus();
  DType ta = a.dtype(), tb = b.dtype();
  if (ta == tb || (ta.is_int() && tb.is_int())) return absl::OkStatus();
  return ErrorAt(pos, absl::StrCat("type mismatch: the operands of ", op, " are ", ToString(ta),
                                   " and ", ToString(tb), "; convert one with ", ToString(ta),
                                   "(...) or ", ToString(tb), "(...)"));
}

// Folds arithmetic on two constants so that "N + 2" is one number, as the
// operator library writes it, with the values the interpreter would compute
// (op_semantics.h). Returns a null Expr when it does not apply.
absl::StatusOr<Expr> Fold(BinOp op, const Expr& a, const Expr& b, Pos pos) {
  if (!IsConstant(a) || !IsConstant(b)) return Expr();
  const bool ints = a.as<IntImm>() && b.as<IntImm>();
  switch (op) {
    case BinOp::kAdd: case BinOp::kSub: case BinOp::kMul: case BinOp::kDiv: case BinOp::kMin:
    case BinOp::kMax:
      break;
    case BinOp::kFloorDiv: case BinOp::kFloorMod:
      if (!ints) return Expr();
      break;
    case BinOp::kMod: case BinOp::kEQ: case BinOp::kNE: case BinOp::kLT: case BinOp::kLE:
    case BinOp::kGT: case BinOp::kGE: case BinOp::kAnd: case BinOp::kOr:
      return Expr();
  }
  DType t;
  if (ints) {
    // Literals are int64; a cast constant (int32(3)) keeps its type when both agree.
    t = a.dtype() == b.dtype() ? a.dtype() : DType::Index();
  } else {
    // The float operand's type; float64 if both are floats and one is.
    t = a.dtype().is_float() ? a.dtype() : b.dtype();
    if (a.dtype().is_float() && b.dtype() == DType::Float64()) t = DType::Float64();
  }
  Scalar x = Convert(*ConstantValue(a), a.dtype(), t);
  Scalar y = Convert(*ConstantValue(b), b.dtype(), t);
  const bool divides = BinOpClass(op) == OpClass::kDivision;
  if (divides && (ints ? y.i == 0 : y.f == 0)) return ErrorAt(pos, "division by zero");
  if (ints && t == DType::Index()) {
    int64_t r = 0;
    bool overflow = false;
    switch (op) {
      case BinOp::kAdd: overflow = __builtin_add_overflow(x.i, y.i, &r); break;
      case BinOp::kSub: overflow = __builtin_sub_overflow(x.i, y.i, &r); break;
      case BinOp::kMul: overflow = __builtin_mul_overflow(x.i, y.i, &r); break;
      default: overflow = divides && x.i == INT64_MIN && y.i == -1; break;
    }
    if (overflow) return ErrorAt(pos, "constant arithmetic overflows 64-bit integers");
  }
  return ConstantExpr(t, *ApplyBinary(op, t, x, y));
}

std::optional<BinOp> BinaryOp(absl::string_view s) {
  static const std::pair<absl::string_view, BinOp> kOps[] = {
      {"+", BinOp::kAdd}, {"-", BinOp::kSub},       {"*", BinOp::kMul}, {"/", BinOp::kDiv},
      {"//", BinOp::kFloorDiv}, {"%", BinOp::kFloorMod}, {"==", BinOp::kEQ}, {"!=", BinOp::kNE},
      {"<", BinOp::kLT},  {"<=", BinOp::kLE},      {">", BinOp::kGT},  {">=", BinOp::kGE},
      {"&&", BinOp::kAnd}, {"||", BinOp::kOr},
  };
  for (const auto& [text, op] : kOps)
    if (text == s) return op;
  return std::nullopt;
}

bool IsReduction(const CallNode& call) {
  std::optional<Function> fn = LookupFunction(call.fn);
  return fn && (std::holds_alternative<SumFn>(*fn) ||
                (std::holds_alternative<MinMaxFn>(*fn) && !call.axes.empty()));
}

}  // namespace

absl::StatusOr<Expr> ExprBuilder::BuildBody(const Node& node) {
  const auto* call = std::get_if<CallNode>(&node.v);
  if (!call || !IsReduction(*call) || call->axes.empty()) return Build(node);
  std::optional<Function> fn = LookupFunction(call->fn);
  Combiner combiner = std::holds_alternative<SumFn>(*fn) ? Combiner::kSum
                                                         : std::get<MinMaxFn>(*fn).combiner;
  return BuildReduction(node, *call, combiner);
}

absl::StatusOr<Expr> ExprBuilder::Build(const Node& node) {
  return std::visit(
      Overloaded{
          [&](const NumberNode& n) -> absl::StatusOr<Expr> {
            return n.is_float ? FloatConst(n.float_value) : IntConst(n.int_value);
          },
          [&](const NameNode& n) { return BuildName(node, n); },
          [&](const ReadNode& n) { return BuildRead(node, n); },
          [&](const CallNode& n) { return BuildCall(node, n); },
          [&](const UnaryNode& n) { return BuildUnary(node, n); },
          [&](const BinaryNode& n) { return BuildBinary(node, n); },
      },
      node.v);
}

absl::StatusOr<int64_t> ExprBuilder::BuildExtent(const Node& node, absl::string_view what) {
  auto e = Build(node);
  if (!e.ok()) return e.status();
  if (const auto* f = e->as<FloatImm>())
    return ErrorAt(node.pos, absl::StrCat("type mismatch: ", what, " must be an integer, got ",
                                          f->value));
  const int64_t* v = AsIntConst(*e);
  if (!v)
    return ErrorAt(node.pos, absl::StrCat(what, " must be a constant (numbers and let names), "
                                                "not an expression of axes or tensors"));
  if (*v <= 0)
    return ErrorAt(node.pos, absl::StrCat(what, " is ", *v, "; extents must be positive"));
  if (*v > kMaxExtent)
    return ErrorAt(node.pos, absl::StrCat(what, " is ", *v, ", more than the limit ", kMaxExtent));
  return *v;
}

absl::StatusOr<Expr> ExprBuilder::BuildConstant(const Node& node, absl::string_view what) {
  auto e = Build(node);
  if (!e.ok()) return e.status();
  if (!IsConstant(*e))
    return ErrorAt(node.pos, absl::StrCat(what, " must be a constant: numbers, earlier let names "
                                                "and arithmetic on them"));
  return e;
}

absl::Status ExprBuilder::CheckFreshName(absl::string_view name, Pos pos,
                                         absl::string_view kind) const {
  std::string clash;
  for (const auto& [axis, var] : scope_.axes)
    if (axis == name) clash = "an axis already in scope here";
  if (scope_.constants->contains(name)) clash = "a let constant";
  if (auto it = scope_.declared->find(name); it != scope_.declared->end())
    clash = absl::StrCat("the tensor defined at line ", it->second.line);
  if (clash.empty()) return absl::OkStatus();
  return ErrorAt(pos, absl::StrCat("redefinition of '", name, "': the ", kind, " has the name of ",
                                   clash, "; pick another name"));
}

absl::StatusOr<Expr> ExprBuilder::BuildName(const Node& node, const NameNode& n) {
  for (auto it = scope_.axes.rbegin(); it != scope_.axes.rend(); ++it)
    if (it->first == n.name) return Expr(it->second);
  if (auto it = scope_.constants->find(n.name); it != scope_.constants->end()) return it->second;
  if (scope_.declared->contains(n.name))
    return ErrorAt(node.pos, absl::StrCat("'", n.name, "' is a tensor; read an element with ",
                                          n.name, "[...]"));
  if (LookupFunction(n.name))
    return ErrorAt(node.pos, absl::StrCat("'", n.name, "' is a function; call it like ", n.name,
                                          "(...)"));
  return ErrorAt(node.pos, absl::StrCat("unknown name '", n.name, "'; use a let constant, an axis "
                                        "of this statement or a reduction axis"));
}

absl::StatusOr<Expr> ExprBuilder::BuildRead(const Node& node, const ReadNode& n) {
  auto it = scope_.tensors->find(n.tensor);
  if (it == scope_.tensors->end()) {
    if (n.tensor == scope_.defining)
      return ErrorAt(node.pos, absl::StrCat("'", n.tensor, "' reads itself; a tensor cannot be "
                                            "computed from its own elements (define the earlier "
                                            "values as another tensor)"));
    if (auto d = scope_.declared->find(n.tensor); d != scope_.declared->end())
      return ErrorAt(node.pos, absl::StrCat("'", n.tensor, "' is read before it is defined (at line ",
                                            d->second.line, "); move its definition above this line"));
    if (scope_.constants->contains(n.tensor))
      return ErrorAt(node.pos, absl::StrCat("'", n.tensor, "' is a let constant, not a tensor; it "
                                            "cannot be indexed"));
    return ErrorAt(node.pos, absl::StrCat("unknown tensor '", n.tensor, "'; declare it with 'input ",
                                          n.tensor, ": float32[...]' or define it above this line"));
  }
  const Tensor& t = it->second;
  if (n.indices.size() != t->shape.size())
    return ErrorAt(node.pos, absl::StrCat("'", n.tensor, "' has ", t->shape.size(), " dimension",
                                          t->shape.size() == 1 ? "" : "s", ", but ",
                                          n.indices.size(), " ind", n.indices.size() == 1 ? "ex was"
                                                                                      : "ices were",
                                          " given; give one index per dimension"));
  std::vector<Expr> indices;
  for (size_t d = 0; d < n.indices.size(); ++d) {
    auto index = Build(*n.indices[d]);
    if (!index.ok()) return index.status();
    if (auto s = RequireInteger(*index, n.indices[d]->pos,
                                absl::StrCat("index ", d + 1, " of '", n.tensor, "'"));
        !s.ok())
      return s;
    indices.push_back(*index);
  }
  return Read(t, std::move(indices));
}

absl::StatusOr<Expr> ExprBuilder::BuildUnary(const Node& node, const UnaryNode& n) {
  auto operand = Build(*n.operand);
  if (!operand.ok()) return operand;
  if (n.op == "!") {
    if (auto s = RequireCondition(*operand, n.operand->pos, "the operand of '!'"); !s.ok()) return s;
    return LogicalNot(*operand);
  }
  if (auto s = RequireNumber(*operand, node.pos, "'-'"); !s.ok()) return s;
  if (const int64_t* v = AsIntConst(*operand)) return IntConst(-*v, operand->dtype());
  if (const auto* f = operand->as<FloatImm>()) return FloatConst(-f->value, operand->dtype());
  return -*operand;
}

absl::StatusOr<Expr> ExprBuilder::BuildBinary(const Node& node, const BinaryNode& n) {
  auto lhs = Build(*n.lhs);
  if (!lhs.ok()) return lhs;
  auto rhs = Build(*n.rhs);
  if (!rhs.ok()) return rhs;
  BinOp op = *BinaryOp(n.op);
  std::string symbol = absl::StrCat("'", n.op, "'");
  if (IsLogical(op)) {
    if (auto s = RequireCondition(*lhs, n.lhs->pos, absl::StrCat("the left side of ", symbol));
        !s.ok())
      return s;
    if (auto s = RequireCondition(*rhs, n.rhs->pos, absl::StrCat("the right side of ", symbol));
        !s.ok())
      return s;
    return MakeBinary(op, *lhs, *rhs);
  }
  if (op == BinOp::kFloorDiv || op == BinOp::kFloorMod) {
    std::string what = absl::StrCat("each operand of ", symbol, " (use / for floats)");
    if (auto s = RequireInteger(*lhs, n.lhs->pos, what); !s.ok()) return s;
    if (auto s = RequireInteger(*rhs, n.rhs->pos, what); !s.ok()) return s;
  } else if (auto s = RequireCompatible(*lhs, *rhs, n.op_pos, symbol); !s.ok()) {
    return s;
  }
  auto folded = Fold(op, *lhs, *rhs, n.op_pos);
  if (!folded.ok() || *folded) return folded;
  return MakeBinary(op, *lhs, *rhs);
}

absl::StatusOr<std::vector<Expr>> ExprBuilder::BuildArgs(const Node& node, const CallNode& n,
                                                          size_t arity) {
  std::vector<Expr> args;
  if (n.args.size() != arity)
    return ErrorAt(node.pos, absl::StrCat("'", n.fn, "' takes ", arity, " argument",
                                          arity == 1 ? "" : "s", ", got ", n.args.size()));
  for (const NodePtr& a : n.args) {
    auto e = Build(*a);
    if (!e.ok()) return e.status();
    args.push_back(*e);
  }
  return args;
}

absl::StatusOr<Expr> ExprBuilder::BuildCall(const Node& node, const CallNode& n) {
  std::optional<Function> fn = LookupFunction(n.fn);
  if (!fn)
    return ErrorAt(node.pos, absl::StrCat("unknown function '", n.fn, "'; known functions: ",
                                          FunctionNames()));
  if (IsReduction(n)) {
    if (n.axes.empty())
      return ErrorAt(node.pos, absl::StrCat("'", n.fn, "' needs reduction axes: ", n.fn,
                                            "(value, k: extent)"));
    if (scope_.defining.empty())
      return ErrorAt(node.pos, absl::StrCat("reduction '", n.fn, "' cannot appear in a let or a "
                                            "shape"));
    return ErrorAt(node.pos, absl::StrCat("reduction '", n.fn, "' must be the whole right-hand side "
                                          "of '", scope_.defining, "', not nested inside an "
                                          "expression; compute it into its own tensor first"));
  }
  if (!n.axes.empty())
    return ErrorAt(n.axes[0].pos, absl::StrCat("'", n.fn, "' takes no reduction axes; only sum, "
                                               "max and min reduce"));
  return std::visit(
      Overloaded{
          [&](const IntrinsicFn& f) -> absl::StatusOr<Expr> {
            auto args = BuildArgs(node, n, IntrinsicArity(f.fn));
            if (!args.ok()) return args.status();
            for (size_t i = 0; i < args->size(); ++i)
              if (auto s = RequireFloat((*args)[i], n.args[i]->pos, n.fn); !s.ok()) return s;
            if (args->size() == 2)
              if (auto s = RequireCompatible((*args)[0], (*args)[1], node.pos,
                                             absl::StrCat("'", n.fn, "'"));
                  !s.ok())
                return s;
            return MakeCall(f.fn, *std::move(args));
          },
          [&](const CastFn& f) -> absl::StatusOr<Expr> {
            auto args = BuildArgs(node, n, 1);
            if (!args.ok()) return args.status();
            const Expr& v = (*args)[0];
            if (const int64_t* i = AsIntConst(v); i && !v.dtype().is_bool())
              return Const(static_cast<double>(*i), f.to);
            if (const auto* x = v.as<FloatImm>()) return Const(x->value, f.to);
            return MakeCast(f.to, v);
          },
          [&](const SelectFn&) -> absl::StatusOr<Expr> {
            auto args = BuildArgs(node, n, 3);
            if (!args.ok()) return args.status();
            if (auto s = RequireCondition((*args)[0], n.args[0]->pos,
                                          "the first argument of 'select'");
                !s.ok())
              return s;
            if (auto s = RequireCompatible((*args)[1], (*args)[2], node.pos, "'select'"); !s.ok())
              return s;
            return MakeSelect((*args)[0], (*args)[1], (*args)[2]);
          },
          [&](const MinMaxFn& f) -> absl::StatusOr<Expr> {
            auto args = BuildArgs(node, n, 2);
            if (!args.ok()) return args.status();
            if (auto s = RequireCompatible((*args)[0], (*args)[1], node.pos,
                                           absl::StrCat("'", n.fn, "'"));
                !s.ok())
              return s;
            auto folded = Fold(f.binary, (*args)[0], (*args)[1], node.pos);
            if (!folded.ok() || *folded) return folded;
            return MakeBinary(f.binary, (*args)[0], (*args)[1]);
          },
          [&](const SumFn&) -> absl::StatusOr<Expr> {
            return ErrorAt(node.pos, "'sum' needs reduction axes");  // IsReduction caught it
          },
      },
      *fn);
}

absl::StatusOr<Expr> ExprBuilder::BuildReduction(const Node& node, const CallNode& n,
                                                 Combiner combiner) {
  if (n.args.size() != 1)
    return ErrorAt(node.pos, absl::StrCat("'", n.fn, "' reduces one value, got ", n.args.size(),
                                          " before the axes (write ", n.fn,
                                          "(value, k: extent))"));
  std::vector<IterVar> axes;
  size_t outer = scope_.axes.size();
  for (const AxisDecl& decl : n.axes) {
    if (auto s = CheckFreshName(decl.name, decl.pos, "reduction axis"); !s.ok()) return s;
    auto extent = BuildExtent(*decl.extent, absl::StrCat("the extent of reduction axis '",
                                                         decl.name, "'"));
    if (!extent.ok()) return extent.status();
    axes.push_back(IterVar{MakeVar(decl.name), *extent});
    scope_.axes.push_back({decl.name, axes.back().var});
  }
  auto value = Build(*n.args[0]);
  if (!value.ok()) return value;
  if (auto s = RequireNumber(*value, n.args[0]->pos, absl::StrCat("'", n.fn, "'")); !s.ok())
    return s;
  Expr condition;
  if (n.where) {
    auto cond = Build(*n.where);
    if (!cond.ok()) return cond;
    if (auto s = RequireCondition(*cond, n.where->pos, "the where condition"); !s.ok()) return s;
    condition = *cond;
  }
  scope_.axes.resize(outer);
  return MakeReduce(combiner, *value, std::move(axes), condition);
}

}  // namespace tuneforge::te::definition
