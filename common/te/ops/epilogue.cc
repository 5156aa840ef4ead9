#include "common/te/ops/epilogue.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/te/expr_util.h"
#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {
namespace {

// What extra input an epilogue reads besides the previous stage.
enum class Operand { kNone, kChannel, kFull };

struct EpilogueDef {
  const char* name;
  const char* meaning;
  const char* stage_name;
  Operand operand;
  const char* operand_name;
  bool needs_float;
  // The stage's body from x (the previous stage, read elementwise) and the
  // operand read (null for Operand::kNone).
  Expr (*body)(const Expr& x, const Expr& operand);
};

Expr Zero(const Expr& x) { return Const(0, x.dtype()); }

const EpilogueDef kEpilogues[] = {
    {"bias", "x + bias[c], c the op's channel axis", "bias_add", Operand::kChannel, "bias", false,
     [](const Expr& x, const Expr& b) { return x + b; }},
    {"add", "x + residual (an input of the output's shape)", "add", Operand::kFull, "residual",
     false, [](const Expr& x, const Expr& r) { return x + r; }},
    {"mul", "x * scale (an input of the output's shape)", "mul", Operand::kFull, "scale", false,
     [](const Expr& x, const Expr& s) { return x * s; }},
    {"relu", "max(x, 0)", "relu", Operand::kNone, nullptr, false,
     [](const Expr& x, const Expr&) { return Max(x, Zero(x)); }},
    {"relu6", "min(max(x, 0), 6)", "relu6", Operand::kNone, nullptr, false,
     [](const Expr& x, const Expr&) { return Min(Max(x, Zero(x)), Const(6, x.dtype())); }},
    {"leaky_relu", "select(x > 0, x, x * 0.01)", "leaky_relu", Operand::kNone, nullptr, true,
     [](const Expr& x, const Expr&) {
       return MakeSelect(x > Zero(x), x, x * Const(0.01, x.dtype()));
     }},
    {"sigmoid", "sigmoid(x)", "sigmoid", Operand::kNone, nullptr, true,
     [](const Expr& x, const Expr&) { return MakeCall(Intrinsic::kSigmoid, {x}); }},
    {"tanh", "tanh(x)", "tanh", Operand::kNone, nullptr, true,
     [](const Expr& x, const Expr&) { return MakeCall(Intrinsic::kTanh, {x}); }},
    {"gelu", "x * 0.5 * (1 + erf(x / sqrt(2)))", "gelu", Operand::kNone, nullptr, true,
     [](const Expr& x, const Expr&) {
       Expr inv_sqrt2 = Const(0.70710678118654752440, x.dtype());
       Expr erf = MakeCall(Intrinsic::kErf, {x * inv_sqrt2});
       return x * Const(0.5, x.dtype()) * (Const(1, x.dtype()) + erf);
     }},
    {"silu", "x * sigmoid(x)", "silu", Operand::kNone, nullptr, true,
     [](const Expr& x, const Expr&) { return x * MakeCall(Intrinsic::kSigmoid, {x}); }},
};

const EpilogueDef* Find(absl::string_view name) {
  for (const EpilogueDef& e : kEpilogues)
    if (name == e.name) return &e;
  return nullptr;
}

// Names of every tensor `root` depends on (itself included).
absl::flat_hash_set<std::string> UsedNames(const Tensor& root) {
  absl::flat_hash_set<std::string> names;
  absl::flat_hash_set<const TensorNode*> seen;
  std::vector<Tensor> work = {root};
  while (!work.empty()) {
    Tensor t = work.back();
    work.pop_back();
    if (!seen.insert(t.get()).second) continue;
    names.insert(t->name);
    if (t->is_compute())
      PostOrderVisit(t->body, [&](const Expr& e) {
        if (const auto* r = e.as<TensorRead>()) work.push_back(r->tensor);
      });
  }
  return names;
}

std::string FreshName(const absl::flat_hash_set<std::string>& used, const std::string& base) {
  if (!used.contains(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, "_", i);
    if (!used.contains(name)) return name;
  }
}

}  // namespace

std::vector<EpilogueInfo> ListEpilogues() {
  std::vector<EpilogueInfo> out;
  for (const EpilogueDef& e : kEpilogues) out.push_back({e.name, e.meaning});
  return out;
}

bool IsEpilogue(absl::string_view name) { return Find(name) != nullptr; }

absl::StatusOr<BuiltOp> ApplyEpilogue(absl::string_view name, const BuiltOp& base,
                                      const OpInputs& operand_input) {
  const EpilogueDef* def = Find(name);
  if (!def) {
    std::vector<std::string> names;
    for (const EpilogueDef& e : kEpilogues) names.push_back(e.name);
    return absl::InvalidArgumentError(absl::StrCat("unknown epilogue '", name,
                                                   "'; valid epilogues: ",
                                                   absl::StrJoin(names, ", ")));
  }
  const Tensor& in = base.output;
  if (def->needs_float)
    if (auto s = RequireFloat(def->name, in->dtype); !s.ok()) return s;
  if (def->operand == Operand::kChannel && base.channel_axis < 0)
    return absl::InvalidArgumentError(absl::StrCat(
        def->name, ": '", in->name, "' has no channel axis to add a bias along; use '+add' with an "
        "input of the output's shape instead"));

  absl::flat_hash_set<std::string> used = UsedNames(in);
  std::vector<std::string> axis_names = AxisNamesOf(in);
  std::vector<IterVar> axes;
  for (size_t d = 0; d < in->shape.size(); ++d) axes.push_back(Axis(axis_names[d], in->shape[d]));
  std::vector<Expr> index = AxisExprs(axes);
  if (auto s = RequireInputCount(def->name, operand_input, def->operand == Operand::kNone ? 0 : 1);
      !s.ok())
    return s;
  Expr operand;
  if (def->operand == Operand::kChannel) {
    int c = base.channel_axis;
    auto bias = OpInput(def->name, operand_input, 0, FreshName(used, def->operand_name),
                        {in->shape[c]}, in->dtype, InputKind::kWeight);
    if (!bias.ok()) return bias.status();
    operand = Read(*bias, {index[c]});
  } else if (def->operand == Operand::kFull) {
    auto other = OpInput(def->name, operand_input, 0, FreshName(used, def->operand_name),
                         in->shape, in->dtype);
    if (!other.ok()) return other.status();
    operand = Read(*other, index);
  }
  if (operand) used.insert(operand.as<TensorRead>()->tensor->name);
  Expr body = def->body(Read(in, index), operand);
  auto out = MakeCompute(FreshName(used, def->stage_name), std::move(axes), std::move(body),
                         def->name);
  if (!out.ok()) return out.status();
  return BuiltOp{*out, base.channel_axis};
}

}  // namespace tuneforge::te::ops
