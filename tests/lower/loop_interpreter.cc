#include "tests/lower/loop_interpreter.h"

#include <cmath>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/overloaded.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::lower::testing {
namespace {

// Values are doubles here (one per lane); operators, casts and intrinsics
// go through the semantics table the reference interpreter uses.
te::Scalar ToScalar(double v, te::DType t) {
  if (t.is_float()) return te::Scalar{0, v};
  return te::Convert(te::Scalar{0, v}, te::DType::Float64(), t);  // no UB on a NaN
}
double FromScalar(te::Scalar v, te::DType t) {
  return t.is_float() ? v.f : static_cast<double>(v.i);
}

class Machine {
 public:
  absl::Status Exec(const Stmt& s) {
    if (!s) return absl::OkStatus();
    return std::visit(
        Overloaded{
            [&](const For& n) -> absl::Status {
              for (int64_t i = 0; i < n.extent; ++i) {
                env_[n.var.get()] = static_cast<double>(i);
                absl::Status st = Exec(n.body);
                if (!st.ok()) return st;
              }
              env_.erase(n.var.get());
              return absl::OkStatus();
            },
            [&](const Store& n) -> absl::Status {
              if (n.indices.size() != 1) return absl::InternalError("store not flattened");
              int lanes = std::max(n.indices[0].dtype().lanes, n.value.dtype().lanes);
              for (int l = 0; l < lanes; ++l) {
                double idx = Eval(n.indices[0], l);
                double v = Eval(n.value, l);
                if (!error_.ok()) return error_;
                te::NDArray* arr = Array(n.buffer);
                if (!arr) return absl::InternalError("store to unknown buffer " + n.buffer->name);
                int64_t i = static_cast<int64_t>(idx);
                if (i < 0 || i >= arr->num_elements())
                  return absl::OutOfRangeError(absl::StrCat("store out of bounds: ", n.buffer->name,
                                                            "[", i, "] of ", arr->num_elements()));
                arr->SetDouble(i, v);
              }
              return absl::OkStatus();
            },
            [&](const Allocate& n) -> absl::Status {
              absl::StatusOr<te::NDArray> a =
                  te::NDArray::Empty(n.buffer->dtype, {n.buffer->alloc_elements()});
              if (!a.ok()) return a.status();
              a->Fill(std::nan(""));  // uninitialised reads show up as NaN
              locals_[n.buffer.get()] = &*a;
              absl::Status st = Exec(n.body);
              locals_.erase(n.buffer.get());
              return st;
            },
            [&](const IfThenElse& n) -> absl::Status {
              double c = Eval(n.condition, 0);
              if (!error_.ok()) return error_;
              return Exec(c != 0 ? n.then_case : n.else_case);
            },
            [&](const Seq& n) -> absl::Status {
              for (const Stmt& c : n.stmts) {
                absl::Status st = Exec(c);
                if (!st.ok()) return st;
              }
              return absl::OkStatus();
            },
            [&](const LetStmt& n) -> absl::Status {
              env_[n.var.get()] = Eval(n.value, 0);
              if (!error_.ok()) return error_;
              absl::Status st = Exec(n.body);
              env_.erase(n.var.get());
              return st;
            },
        },
        s.get()->v);
  }

  void Bind(const te::Buffer& b, te::NDArray* a) { args_[b.get()] = a; }

 private:
  te::NDArray* Array(const te::Buffer& b) {
    if (auto it = locals_.find(b.get()); it != locals_.end()) return it->second;
    if (auto it = args_.find(b.get()); it != args_.end()) return it->second;
    return nullptr;
  }

  double Binary(const te::Binary& n, double a, double b, te::DType t) {
    te::DType ta = n.a.dtype().element(), tb = n.b.dtype().element();
    std::optional<te::Scalar> r =
        te::ApplyBinary(n.op, ta, ToScalar(a, ta), te::Convert(ToScalar(b, tb), tb, ta));
    if (!r) return Fail(absl::StrCat("integer division by zero (", te::BinOpSymbol(n.op), ")"));
    return FromScalar(*r, t.element());
  }

  double Fail(const std::string& msg) {
    if (error_.ok()) error_ = absl::InvalidArgumentError(msg);
    return 0;
  }

  // Value of lane `l` of e (scalars have one lane, used for every l).
  double Eval(const Expr& e, int l) {
    te::DType t = e.dtype();
    return std::visit(
        Overloaded{
            [&](const te::IntImm& n) {
              return FromScalar(te::Convert({n.value, 0}, te::DType::Int64(), t.element()),
                                t.element());
            },
            [&](const te::FloatImm& n) {
              return FromScalar(te::Convert({0, n.value}, te::DType::Float64(), t.element()),
                                t.element());
            },
            [&](const te::VarRef& n) {
              auto it = env_.find(n.var.get());
              if (it == env_.end()) return Fail("unbound variable " + n.var->name);
              return it->second;
            },
            [&](const te::Binary& n) {
              if (n.op == te::BinOp::kAnd) return Eval(n.a, l) != 0 && Eval(n.b, l) != 0 ? 1.0 : 0.0;
              if (n.op == te::BinOp::kOr) return Eval(n.a, l) != 0 || Eval(n.b, l) != 0 ? 1.0 : 0.0;
              double a = Eval(n.a, l), b = Eval(n.b, l);
              return Binary(n, a, b, t);
            },
            [&](const te::Not& n) { return Eval(n.a, l) != 0 ? 0.0 : 1.0; },
            [&](const te::Select& n) {
              return Eval(n.cond, l) != 0 ? Eval(n.true_value, l) : Eval(n.false_value, l);
            },
            [&](const te::Cast& n) {
              te::DType from = n.value.dtype().element();
              te::Scalar v = te::Convert(ToScalar(Eval(n.value, l), from), from, t.element());
              return FromScalar(v, t.element());
            },
            [&](const te::Call& n) {
              std::vector<double> x;
              for (const Expr& a : n.args) x.push_back(Eval(a, l));
              x.resize(2, 0.0);
              return te::ApplyIntrinsic(n.fn, t.element(), x[0], x[1]);
            },
            [&](const te::TensorRead&) { return Fail("TensorRead left in lowered code"); },
            [&](const te::Reduce&) { return Fail("Reduce left in lowered code"); },
            [&](const te::BufferLoad& n) {
              if (n.indices.size() != 1) return Fail("load not flattened");
              te::NDArray* arr = Array(n.buffer);
              if (!arr) return Fail("load from unknown buffer " + n.buffer->name);
              auto i = static_cast<int64_t>(Eval(n.indices[0], l));
              if (i < 0 || i >= arr->num_elements())
                return Fail(absl::StrCat("load out of bounds: ", n.buffer->name, "[", i, "] of ",
                                         arr->num_elements()));
              return arr->GetDouble(i);
            },
            [&](const te::Ramp& n) {
              return Eval(n.base, l) + static_cast<double>(n.stride) * l;
            },
            [&](const te::Broadcast& n) { return Eval(n.value, 0); },
        },
        e->v);
  }

  absl::flat_hash_map<const te::VarNode*, double> env_;
  absl::flat_hash_map<const te::BufferNode*, te::NDArray*> args_;
  absl::flat_hash_map<const te::BufferNode*, te::NDArray*> locals_;
  absl::Status error_;
};

}  // namespace

absl::Status RunLoweredFunc(const LoweredFunc& func, std::vector<te::NDArray*> args) {
  if (args.size() != func.args.size())
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", func.args.size(), " arguments, got ", args.size()));
  Machine m;
  for (size_t i = 0; i < args.size(); ++i) m.Bind(func.args[i], args[i]);
  return m.Exec(func.body);
}

}  // namespace tuneforge::lower::testing
