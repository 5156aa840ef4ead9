#include "common/te/definition/printer.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/overloaded.h"
#include "common/te/definition/functions.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"
#include "common/te/workload.h"

namespace tuneforge::te::definition {
namespace {

using TensorNames = absl::flat_hash_map<const TensorNode*, std::string>;

// ---- Names ------------------------------------------------------------------

// Words the parser gives a meaning of their own: statement keywords, the
// 'where' of reductions, functions and type names.
bool IsReserved(const std::string& name) {
  return name == "let" || name == "input" || name == "output" || name == "where" ||
         LookupFunction(name).has_value() || ParseDType(name).has_value();
}

// `name` made an identifier, not reserved and not in `taken`, which it joins.
std::string FreshName(const std::string& name, absl::flat_hash_set<std::string>& taken) {
  std::string base = name;
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "_" + base;
  std::string out = base;
  for (int i = 1; IsReserved(out) || taken.contains(out); ++i) out = absl::StrCat(base, "_", i);
  taken.insert(out);
  return out;
}

// ---- Expressions --------------------------------------------------------------

bool IsConst(const Expr& e) { return e.as<IntImm>() || e.as<FloatImm>(); }

// The parser folds arithmetic on two constants (expr_builder.cc, Fold), so
// such a node cannot be written down unfolded.
bool ParserFolds(BinOp op, const Expr& a, const Expr& b) {
  if (!IsConst(a) || !IsConst(b)) return false;
  if (op == BinOp::kFloorDiv || op == BinOp::kFloorMod) return a.as<IntImm>() && b.as<IntImm>();
  return op != BinOp::kMod && (BinOpClass(op) == OpClass::kArithmetic ||
                               BinOpClass(op) == OpClass::kDivision ||
                               BinOpClass(op) == OpClass::kMinMax);
}

// The shortest digits that read back to exactly `v` (v >= 0, not NaN).
std::string UnsignedFloatText(double v) {
  // The language has no infinity, but a literal too large for a double reads as one.
  if (std::isinf(v)) return "1e999";
  char buf[32];
  char* end = std::to_chars(buf, buf + sizeof(buf), v).ptr;
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // "2" would read as an integer
  return s;
}

class ExprPrinter {
 public:
  ExprPrinter(const TensorNames* tensors, absl::flat_hash_map<const VarNode*, std::string> vars)
      : tensors_(tensors), vars_(std::move(vars)) {}

  // `e` as language text. `typed_by_context`: a constant that gets its type
  // from the other operand, so a bare literal will do. After a failure the
  // text is meaningless and status() says why.
  std::string Print(const Expr& e, bool typed_by_context = false) {
    if (e.dtype().is_vector()) return Fail(e, "vector values");
    return std::visit(
        Overloaded{
            [&](const IntImm&) { return Constant(e, typed_by_context); },
            [&](const FloatImm&) { return Constant(e, typed_by_context); },
            [&](const VarRef& v) {
              auto it = vars_.find(v.var.get());
              return it != vars_.end() ? it->second : Fail(e, "variables other than the op's axes");
            },
            [&](const Binary& b) { return PrintBinary(e, b); },
            [&](const Not& n) { return absl::StrCat("!(", Print(n.a), ")"); },
            [&](const Select& s) {
              return absl::StrCat("select(", Print(s.cond), ", ", Operand(s.true_value, s.false_value),
                                  ", ", Operand(s.false_value, s.true_value), ")");
            },
            [&](const Cast& c) {
              if (IsConst(c.value))
                return Fail(e, "casts of constants (it folds them into a constant of the type)");
              if (e.dtype().is_bool()) return Fail(e, "casts to bool");
              return absl::StrCat(ToString(e.dtype()), "(", Print(c.value), ")");
            },
            [&](const Call& c) {
              std::vector<std::string> args;
              for (size_t i = 0; i < c.args.size(); ++i)
                args.push_back(c.args.size() == 2 ? Operand(c.args[i], c.args[1 - i]) : Print(c.args[i]));
              return absl::StrCat(IntrinsicName(c.fn), "(", absl::StrJoin(args, ", "), ")");
            },
            [&](const TensorRead& r) {
              auto it = tensors_->find(r.tensor.get());
              if (it == tensors_->end()) return Fail(e, "reads of tensors outside the DAG");
              std::vector<std::string> indices;
              for (const Expr& i : r.indices) indices.push_back(Print(i));
              return absl::StrCat(it->second, "[", absl::StrJoin(indices, ", "), "]");
            },
            [&](const Reduce&) {
              return Fail(e, "reductions inside an expression (only as the whole body)");
            },
            [&](const BufferLoad&) { return Fail(e, "buffer loads (lowered programs)"); },
            [&](const Ramp&) { return Fail(e, "ramps (lowered programs)"); },
            [&](const Broadcast&) { return Fail(e, "broadcasts (lowered programs)"); },
        },
        e->v);
  }

  const absl::Status& status() const { return status_; }

 private:
  std::string Fail(const Expr& e, absl::string_view what) {
    if (status_.ok())
      status_ = absl::InvalidArgumentError(
          absl::StrCat("the definition language has no ", what, ": ", ToString(e)));
    return "";
  }

  // One of two operands that the parser brings to one type: a constant
  // beside a non-constant of its type takes that type as a bare literal.
  std::string Operand(const Expr& e, const Expr& other) {
    return Print(e, IsConst(e) && !IsConst(other) && e.dtype() == other.dtype());
  }

  // Bare literals are int64 and float32; other types are written as a cast,
  // which the parser folds into a constant of that type (same node).
  std::string Constant(const Expr& e, bool typed_by_context) {
    DType t = e.dtype();
    std::string text;
    if (const auto* i = e.as<IntImm>()) {
      if (t.is_bool()) return Fail(e, "boolean constants");
      // -9223372036854775808 has no positive counterpart to negate.
      text = i->value == std::numeric_limits<int64_t>::min() ? "(-9223372036854775807 - 1)"
                                                             : absl::StrCat(i->value);
    } else {
      double v = e.as<FloatImm>()->value;
      if (std::isnan(v)) return Fail(e, "NaN constants");
      text = absl::StrCat(std::signbit(v) ? "-" : "", UnsignedFloatText(std::fabs(v)));
    }
    if (!typed_by_context && t != DType::Int64() && t != DType::Float32())
      return absl::StrCat(ToString(t), "(", text, ")");
    return text[0] == '-' ? absl::StrCat("(", text, ")") : text;
  }

  std::string PrintBinary(const Expr& e, const Binary& b) {
    if (b.op == BinOp::kMod) return Fail(e, "truncating remainder (its % is floor modulo)");
    if (ParserFolds(b.op, b.a, b.b))
      return Fail(e, "arithmetic on two constants (it folds it into one constant)");
    std::string a = Operand(b.a, b.b), c = Operand(b.b, b.a);
    if (b.op == BinOp::kMin || b.op == BinOp::kMax)
      return absl::StrCat(BinOpSymbol(b.op), "(", a, ", ", c, ")");
    const char* symbol = b.op == BinOp::kFloorDiv   ? "//"
                         : b.op == BinOp::kFloorMod ? "%"
                                                    : BinOpSymbol(b.op);
    return absl::StrCat("(", a, " ", symbol, " ", c, ")");
  }

  const TensorNames* tensors_;
  absl::flat_hash_map<const VarNode*, std::string> vars_;
  absl::Status status_;
};

// ---- Statements -------------------------------------------------------------

// One statement: an input line or a computed tensor. `taken` holds the
// tensor names; axes must differ from them and from each other.
absl::StatusOr<std::string> PrintOp(const Tensor& t, const TensorNames& names,
                                    absl::flat_hash_set<std::string> taken) {
  if (t->dtype.is_bool() || t->dtype.is_vector())
    return absl::InvalidArgumentError(absl::StrCat("tensors of type ", ToString(t->dtype),
                                                   " cannot be declared"));
  const std::string& name = names.at(t.get());
  if (t->is_placeholder())
    return absl::StrCat("input ", name, ": ", ToString(t->dtype), "[", absl::StrJoin(t->shape, ", "),
                        "]", t->constant ? " constant" : "");
  absl::flat_hash_map<const VarNode*, std::string> vars;
  auto axis_list = [&](const std::vector<IterVar>& axes) {
    return absl::StrJoin(axes, ", ", [&](std::string* out, const IterVar& ax) {
      absl::StrAppend(out, vars[ax.var.get()] = FreshName(ax.var->name, taken), ": ", ax.extent);
    });
  };
  std::string head = absl::StrCat(name, "[", axis_list(t->axes), "] = ");
  const Reduce* r = t->reduce();
  if (r && r->axes.empty())
    return absl::InvalidArgumentError("the definition language has no reductions without axes");
  std::string reduce_axes = r ? axis_list(r->axes) : "";  // named before the body uses them
  ExprPrinter printer(&names, std::move(vars));
  std::string body;
  if (r) {
    body = absl::StrCat(CombinerName(r->combiner), "(", printer.Print(r->source), ", ", reduce_axes);
    if (r->condition) absl::StrAppend(&body, " where ", printer.Print(r->condition));
    body += ")";
  } else {
    body = printer.Print(t->body);
  }
  if (!printer.status().ok()) return printer.status();
  return head + body;
}

// A definition is rebuilt depth-first from its outputs (ComputeDag::Create);
// a DAG in another op order would number its ops, and so its key, differently.
absl::Status CheckOrder(const ComputeDag& dag) {
  std::vector<Tensor> outputs;
  for (int i : dag.OutputOps()) outputs.push_back(dag.op(i));
  absl::StatusOr<ComputeDag> rebuilt = ComputeDag::Create(outputs);
  if (!rebuilt.ok()) return rebuilt.status();
  for (int i = 0; i < dag.num_ops(); ++i) {
    if (i < rebuilt->num_ops() && rebuilt->op(i) == dag.op(i)) continue;
    if (dag.analysis(i).is_placeholder && dag.analysis(i).consumers.empty())
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", dag.op(i)->name, "' is read by no op; a definition cannot declare it"));
    return absl::InvalidArgumentError(absl::StrCat(
        "op ", i, " ('", dag.op(i)->name, "') is out of the depth-first order a definition is "
        "rebuilt in, so the printed text would have another key"));
  }
  return absl::OkStatus();
}

// Reads `text` back the way a worker will and compares the canonical texts,
// naming the first op that differs. Line i + 1 of `text` prints op i.
absl::Status CheckReadsBack(const ComputeDag& dag, const std::string& text) {
  absl::StatusOr<Workload> back = ParseDefinition(text, "printed");
  if (!back.ok()) {
    std::string message(back.status().message());
    int line = 0;
    std::sscanf(message.c_str(), "line %d", &line);
    std::string where = line >= 1 && line <= dag.num_ops()
                            ? absl::StrCat(" at op '", dag.op(line - 1)->name, "'")
                            : "";
    return absl::InvalidArgumentError(
        absl::StrCat("the printed definition does not read back", where, ": ", message));
  }
  if (back->dag->canonical_text() == dag.canonical_text()) return absl::OkStatus();
  std::vector<std::string> want = absl::StrSplit(dag.canonical_text(), '\n');
  std::vector<std::string> got = absl::StrSplit(back->dag->canonical_text(), '\n');
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  std::string op = i < static_cast<size_t>(dag.num_ops()) ? dag.op(static_cast<int>(i))->name : "?";
  return absl::InvalidArgumentError(absl::StrCat(
      "op '", op, "' reads back differently: '", i < got.size() ? got[i] : "", "' instead of '",
      i < want.size() ? want[i] : "", "'"));
}

}  // namespace

absl::StatusOr<std::string> PrintDefinition(const ComputeDag& dag) {
  if (auto s = CheckOrder(dag); !s.ok()) return s;
  absl::flat_hash_set<std::string> taken;
  TensorNames names;
  for (const Tensor& t : dag.ops()) names[t.get()] = FreshName(t->name, taken);
  std::string text;
  for (const Tensor& t : dag.ops()) {
    absl::StatusOr<std::string> line = PrintOp(t, names, taken);
    if (!line.ok())
      return absl::Status(line.status().code(),
                          absl::StrCat("op '", t->name, "': ", line.status().message()));
    absl::StrAppend(&text, *line, "\n");
  }
  std::vector<std::string> outputs;
  for (int i : dag.OutputOps()) outputs.push_back(names.at(dag.op(i).get()));
  absl::StrAppend(&text, "output ", absl::StrJoin(outputs, ", "), "\n");
  if (auto s = CheckReadsBack(dag, text); !s.ok()) return s;
  return text;
}

}  // namespace tuneforge::te::definition
