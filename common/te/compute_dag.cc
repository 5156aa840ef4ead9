#include "common/te/compute_dag.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/overloaded.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te {
namespace {

// Tensors an expression reads, in order of first appearance.
std::vector<Tensor> ReadTensors(const Expr& body) {
  std::vector<Tensor> out;
  absl::flat_hash_set<const TensorNode*> seen;
  PostOrderVisit(body, [&](const Expr& e) {
    if (const auto* r = e.as<TensorRead>())
      if (seen.insert(r->tensor.get()).second) out.push_back(r->tensor);
  });
  return out;
}

bool IsExpensive(Intrinsic fn) {
  switch (fn) {
    case Intrinsic::kAbs: case Intrinsic::kFloor: case Intrinsic::kCeil: case Intrinsic::kRound:
      return false;
    case Intrinsic::kExp: case Intrinsic::kLog: case Intrinsic::kSqrt: case Intrinsic::kRsqrt:
    case Intrinsic::kTanh: case Intrinsic::kSigmoid: case Intrinsic::kErf: case Intrinsic::kPow:
      return true;
  }
  return true;
}

// Arithmetic operations per evaluation of the body, the combiner counting 1.
// Every value operation counts, on floats or integers (an int32 matmul does
// 2*M*N*K operations too); index arithmetic inside reads and the conditions
// of select and of reductions are addressing, not computation, and do not.
// A select costs its dearer branch: one of them is evaluated per point.
double FlopsPerPoint(const Expr& e);

// Operations one operator counts (comparisons and logic are control).
double OperatorCost(BinOp op) {
  switch (BinOpClass(op)) {
    case OpClass::kArithmetic: case OpClass::kDivision: case OpClass::kMinMax:
      return 1;
    case OpClass::kComparison: case OpClass::kLogical:
      return 0;
  }
  return 0;
}

double ChildrenFlops(const Expr& e) {
  double n = 0;
  ForEachChild(e, [&](const Expr& c) { n += FlopsPerPoint(c); });
  return n;
}

// One case per node kind (no default), so a new kind says what it costs.
double FlopsPerPoint(const Expr& e) {
  return std::visit(
      Overloaded{
          [](const IntImm&) { return 0.0; },
          [](const FloatImm&) { return 0.0; },
          [](const VarRef&) { return 0.0; },
          [&](const Binary& b) { return OperatorCost(b.op) + ChildrenFlops(e); },
          [&](const Not&) { return ChildrenFlops(e); },
          [](const Select& s) {
            return std::max(FlopsPerPoint(s.true_value), FlopsPerPoint(s.false_value));
          },
          [&](const Cast&) { return ChildrenFlops(e); },
          [&](const Call&) { return 1 + ChildrenFlops(e); },
          [](const TensorRead&) { return 0.0; },
          [](const Reduce& r) { return 1 + FlopsPerPoint(r.source); },
          [](const BufferLoad&) { return 0.0; },
          [&](const Ramp&) { return ChildrenFlops(e); },
          [&](const Broadcast&) { return ChildrenFlops(e); },
      },
      e->v);
}

OpAnalysis Analyze(const Tensor& op) {
  OpAnalysis a;
  a.is_placeholder = op->is_placeholder();
  if (a.is_placeholder) return a;
  const Reduce* red = op->reduce();
  a.has_reduction = red != nullptr;
  bool all_reads_elementwise = true;
  bool simple_indices = true;
  absl::flat_hash_map<const TensorNode*, absl::flat_hash_set<const VarNode*>> vars_of_input;
  PostOrderVisit(op->body, [&](const Expr& e) {
    if (const auto* c = e.as<Call>(); c && IsExpensive(c->fn)) a.has_expensive_op = true;
    const auto* r = e.as<TensorRead>();
    if (!r) return;
    // Elementwise: indices are exactly the op's axes in order.
    bool same = r->indices.size() == op->axes.size() && r->tensor->shape == op->shape;
    for (size_t d = 0; same && d < r->indices.size(); ++d) {
      const auto* v = r->indices[d].as<VarRef>();
      same = v && v->var == op->axes[d].var;
    }
    if (!same) all_reads_elementwise = false;
    // Each index mentions at most one variable (A[i + 1, j], not A[i + j]).
    for (const Expr& idx : r->indices) {
      int vars = 0;
      PostOrderVisit(idx, [&](const Expr& x) { vars += x.as<VarRef>() != nullptr; });
      if (vars > 1) simple_indices = false;
    }
    for (const Expr& idx : r->indices)
      PostOrderVisit(idx, [&](const Expr& x) {
        if (const auto* v = x.as<VarRef>()) vars_of_input[r->tensor.get()].insert(v->var.get());
      });
  });
  // Data reuse (Ansor's rule): an input that does not depend on some axis of
  // extent > 1 is read again along that axis. Two such inputs (A[i, k] and
  // B[k, j] of a matmul), or one in a reduction, make tiling pay off; a single
  // broadcast input of an elementwise op (a bias) does not. Axes of extent 1
  // give no reuse: a [1]-shaped reduction (a norm) reads its input once.
  int inputs_missing_an_axis = 0;
  for (const auto& [input, vars] : vars_of_input)
    for (const IterVar& ax : op->axes)
      if (ax.extent > 1 && !vars.contains(ax.var.get())) {
        ++inputs_missing_an_axis;
        break;
      }
  a.is_elementwise = !a.has_reduction && all_reads_elementwise;
  a.is_strictly_inlinable = !a.has_reduction && !a.has_expensive_op && simple_indices;
  a.needs_multi_level_tiling =
      inputs_missing_an_axis >= 2 || (inputs_missing_an_axis >= 1 && a.has_reduction);
  return a;
}

// Canonical text: ops numbered in order, variables numbered per op, no names.
std::string Canonical(const std::vector<Tensor>& ops) {
  absl::flat_hash_map<const TensorNode*, int> index;
  std::string out;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Tensor& op = ops[i];
    index[op.get()] = static_cast<int>(i);
    absl::StrAppend(&out, "t", i, ":", ToString(op->dtype), "[", absl::StrJoin(op->shape, ","), "]");
    if (op->is_placeholder()) {
      absl::StrAppend(&out, op->constant ? "=input const\n" : "=input\n");
      continue;
    }
    // Rename variables v0, v1, ... and tensors t<index> by rebuilding with
    // fresh named copies, then printing.
    VarMap rename;
    int counter = 0;
    for (const IterVar& ax : op->axes)
      rename[ax.var.get()] = Expr(MakeVar(absl::StrCat("v", counter++)));
    if (const Reduce* r = op->reduce())
      for (const IterVar& ax : r->axes)
        rename[ax.var.get()] = Expr(MakeVar(absl::StrCat("v", counter++)));
    // Tensors are printed by their index: reads point at stand-ins named t<k>.
    absl::flat_hash_map<const TensorNode*, Tensor> stand_in;
    for (const Tensor& t : ReadTensors(op->body))
      stand_in[t.get()] = Placeholder(absl::StrCat("t", index[t.get()]), t->shape, t->dtype);
    Expr body = ReplaceReads(Substitute(op->body, rename), [&](const TensorRead& r, const Expr&) {
      return MakeTensorRead(stand_in.at(r.tensor.get()), r.indices);
    });
    if (const Reduce* r = body.as<Reduce>()) {  // the axis list names variables too
      std::vector<IterVar> axes = r->axes;
      for (IterVar& ax : axes) ax.var = rename.at(ax.var.get()).as<VarRef>()->var;
      body = MakeReduce(r->combiner, r->source, axes, r->condition);
    }
    std::string text = ToString(body);
    absl::StrAppend(&out, "=", text, "\n");
  }
  return out;
}

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

absl::StatusOr<ComputeDag> ComputeDag::Create(const std::vector<Tensor>& outputs) {
  if (outputs.empty()) return absl::InvalidArgumentError("a ComputeDag needs at least one output");
  ComputeDag dag;
  absl::flat_hash_map<const TensorNode*, int> state;  // 1 = visiting, 2 = done
  absl::flat_hash_map<std::string, const TensorNode*> names;
  std::function<absl::Status(const Tensor&)> visit = [&](const Tensor& t) -> absl::Status {
    auto it = state.find(t.get());
    if (it != state.end()) {
      if (it->second == 1)
        return absl::InvalidArgumentError(absl::StrCat("tensor '", t->name, "' depends on itself"));
      return absl::OkStatus();
    }
    state[t.get()] = 1;
    if (t->is_compute())
      for (const Tensor& in : ReadTensors(t->body)) {
        absl::Status s = visit(in);
        if (!s.ok()) return s;
      }
    state[t.get()] = 2;
    auto [pos, inserted] = names.emplace(t->name, t.get());
    if (!inserted)
      return absl::InvalidArgumentError(
          absl::StrCat("two different tensors are named '", t->name, "'; names must be unique"));
    dag.ops_.push_back(t);
    return absl::OkStatus();
  };
  for (const Tensor& out : outputs) {
    absl::Status s = visit(out);
    if (!s.ok()) return s;
  }
  dag.AnalyzeOps();
  return dag;
}

absl::StatusOr<ComputeDag> ComputeDag::CreateFromOps(std::vector<Tensor> ops) {
  if (ops.empty()) return absl::InvalidArgumentError("a ComputeDag needs at least one op");
  absl::flat_hash_set<const TensorNode*> earlier;
  absl::flat_hash_set<std::string> names;
  for (const Tensor& op : ops) {
    if (!names.insert(op->name).second)
      return absl::InvalidArgumentError(
          absl::StrCat("two different tensors are named '", op->name, "'; names must be unique"));
    if (op->is_compute())
      for (const Tensor& in : ReadTensors(op->body))
        if (!earlier.contains(in.get()))
          return absl::InvalidArgumentError(absl::StrCat(
              "op '", op->name, "' reads '", in->name,
              "', which is not listed before it; list ops in topological order"));
    earlier.insert(op.get());
  }
  ComputeDag dag;
  dag.ops_ = std::move(ops);
  dag.AnalyzeOps();
  return dag;
}

namespace {

// The axes of `op` (spatial, then reduction) that appear in an index of a
// read of a constant matrix.
std::vector<int> ConstantIndexAxes(const Tensor& op, const std::function<bool(const TensorNode*)>& is_matrix) {
  std::vector<const VarNode*> vars;
  PostOrderVisit(op->body, [&](const Expr& e) {
    const auto* r = e.as<TensorRead>();
    if (!r || !is_matrix(r->tensor.get())) return;
    for (const Expr& index : r->indices)
      PostOrderVisit(index, [&](const Expr& i) {
        if (const auto* v = i.as<VarRef>()) vars.push_back(v->var.get());
      });
  });
  std::vector<int> axes;
  if (vars.empty()) return axes;
  std::vector<const VarNode*> all;
  for (const IterVar& ax : op->axes) all.push_back(ax.var.get());
  if (const Reduce* red = op->reduce())
    for (const IterVar& ax : red->axes) all.push_back(ax.var.get());
  for (size_t i = 0; i < all.size(); ++i)
    if (std::find(vars.begin(), vars.end(), all[i]) != vars.end()) axes.push_back(static_cast<int>(i));
  return axes;
}

}  // namespace

void ComputeDag::AnalyzeOps() {
  ComputeDag& dag = *this;
  // Analysis and producer/consumer edges.
  absl::flat_hash_map<const TensorNode*, int> index;
  for (int i = 0; i < dag.num_ops(); ++i) index[dag.ops_[i].get()] = i;
  dag.analysis_.resize(dag.ops_.size());
  for (int i = 0; i < dag.num_ops(); ++i) {
    const Tensor& op = dag.ops_[i];
    OpAnalysis a = Analyze(op);
    if (op->is_compute()) {
      for (const Tensor& in : ReadTensors(op->body)) {
        int p = index.at(in.get());
        a.producers.push_back(p);
        dag.analysis_[p].consumers.push_back(i);
      }
      a.is_constant_matrix = a.producers.empty();
      a.constant_index_axes = ConstantIndexAxes(op, [&](const TensorNode* t) {
        const int p = index.at(t);
        return dag.ops_[p]->is_compute() && dag.analysis_[p].is_constant_matrix;
      });
      double points = static_cast<double>(op->num_elements());
      if (const Reduce* r = op->reduce())
        for (const IterVar& ax : r->axes) points *= static_cast<double>(ax.extent);
      dag.flops_ += points * FlopsPerPoint(op->body);
    }
    a.consumers = std::move(dag.analysis_[i].consumers);
    dag.analysis_[i] = std::move(a);
  }
  for (OpAnalysis& a : dag.analysis_) a.is_output = a.consumers.empty() && !a.is_placeholder;
  dag.canonical_text_ = Canonical(dag.ops_);
}

int ComputeDag::IndexOf(const TensorNode* op) const {
  for (int i = 0; i < num_ops(); ++i)
    if (ops_[i].get() == op) return i;
  return -1;
}

std::vector<int> ComputeDag::InputOps() const {
  std::vector<int> out;
  for (int i = 0; i < num_ops(); ++i)
    if (analysis_[i].is_placeholder) out.push_back(i);
  return out;
}

std::vector<int> ComputeDag::OutputOps() const {
  std::vector<int> out;
  for (int i = 0; i < num_ops(); ++i)
    if (analysis_[i].is_output) out.push_back(i);
  return out;
}

bool ComputeDag::ReadsElementwise(int consumer, int producer) const {
  if (consumer < 0 || consumer >= num_ops() || producer < 0 || producer >= num_ops()) return false;
  const Tensor& op = ops_[consumer];
  const TensorNode* source = ops_[producer].get();
  if (!op->is_compute() || op->shape != source->shape) return false;
  bool found = false, all_match = true;
  PostOrderVisit(op->body, [&](const Expr& e) {
    const auto* r = e.as<TensorRead>();
    if (!r || r->tensor.get() != source) return;
    found = true;
    for (size_t d = 0; d < r->indices.size(); ++d) {
      const auto* v = r->indices[d].as<VarRef>();
      if (!v || v->var != op->axes[d].var) all_match = false;
    }
  });
  return found && all_match;
}

std::vector<int> ComputeDag::ArgumentOps() const {
  std::vector<int> out = InputOps();
  for (int i : OutputOps()) out.push_back(i);
  return out;
}

std::string ComputeDag::workload_key() const {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(Fnv1a64(canonical_text_)));
  return buf;
}

std::string ComputeDag::ToString() const {
  std::string out;
  for (const Tensor& op : ops_) {
    absl::StrAppend(&out, op->name, ": ", te::ToString(op->dtype), "[", absl::StrJoin(op->shape, ", "),
                    "]");
    if (op->is_placeholder()) {
      absl::StrAppend(&out, op->constant ? " = constant placeholder\n" : " = placeholder\n");
      continue;
    }
    std::string axes = absl::StrJoin(op->axes, ", ", [](std::string* o, const IterVar& a) {
      o->append(a.var->name);
    });
    absl::StrAppend(&out, " = compute(", axes, ") ", te::ToString(op->body), "\n");
  }
  return out;
}

}  // namespace tuneforge::te
