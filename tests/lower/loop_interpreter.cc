#include "tests/lower/loop_interpreter.h"

#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/overloaded.h"
#include "common/te/arith/interval.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower::testing {
namespace {

using te::arith::FloorDivInt;
using te::arith::FloorModInt;

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

  static double Round(double v, te::DType t) {
    switch (t.scalar) {
      case te::ScalarType::kFloat32: return static_cast<float>(v);
      case te::ScalarType::kFloat64: return v;
      case te::ScalarType::kBool: return v != 0 ? 1 : 0;
      case te::ScalarType::kInt8: return static_cast<int8_t>(static_cast<int64_t>(v));
      case te::ScalarType::kInt32: return static_cast<int32_t>(static_cast<int64_t>(v));
      case te::ScalarType::kInt64: return static_cast<double>(static_cast<int64_t>(v));
    }
    return v;
  }

  double Binary(te::BinOp op, double a, double b, te::DType t) {
    bool f = t.is_float();
    auto ia = static_cast<int64_t>(a), ib = static_cast<int64_t>(b);
    switch (op) {
      case te::BinOp::kAdd: return a + b;
      case te::BinOp::kSub: return a - b;
      case te::BinOp::kMul: return a * b;
      case te::BinOp::kDiv:
        if (f) return a / b;
        if (ib == 0) return Fail("integer division by zero");
        return static_cast<double>(ia / ib);
      case te::BinOp::kMod:
        if (f) return std::fmod(a, b);
        if (ib == 0) return Fail("integer modulo by zero");
        return static_cast<double>(ia % ib);
      case te::BinOp::kFloorDiv:
        if (f) return std::floor(a / b);
        if (ib == 0) return Fail("integer division by zero");
        return static_cast<double>(FloorDivInt(ia, ib));
      case te::BinOp::kFloorMod:
        if (f) return a - std::floor(a / b) * b;
        if (ib == 0) return Fail("integer modulo by zero");
        return static_cast<double>(FloorModInt(ia, ib));
      case te::BinOp::kMin: return a < b ? a : b;
      case te::BinOp::kMax: return a > b ? a : b;
      case te::BinOp::kEQ: return a == b;
      case te::BinOp::kNE: return a != b;
      case te::BinOp::kLT: return a < b;
      case te::BinOp::kLE: return a <= b;
      case te::BinOp::kGT: return a > b;
      case te::BinOp::kGE: return a >= b;
      case te::BinOp::kAnd: return (a != 0) && (b != 0);
      case te::BinOp::kOr: return (a != 0) || (b != 0);
    }
    return 0;
  }

  static double Intrinsic(te::Intrinsic fn, const std::vector<double>& x) {
    switch (fn) {
      case te::Intrinsic::kExp: return std::exp(x[0]);
      case te::Intrinsic::kLog: return std::log(x[0]);
      case te::Intrinsic::kSqrt: return std::sqrt(x[0]);
      case te::Intrinsic::kRsqrt: return 1.0 / std::sqrt(x[0]);
      case te::Intrinsic::kTanh: return std::tanh(x[0]);
      case te::Intrinsic::kSigmoid: return 1.0 / (1.0 + std::exp(-x[0]));
      case te::Intrinsic::kErf: return std::erf(x[0]);
      case te::Intrinsic::kAbs: return std::fabs(x[0]);
      case te::Intrinsic::kFloor: return std::floor(x[0]);
      case te::Intrinsic::kCeil: return std::ceil(x[0]);
      case te::Intrinsic::kRound: return std::round(x[0]);
      case te::Intrinsic::kPow: return std::pow(x[0], x[1]);
    }
    return 0;
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
            [&](const te::IntImm& n) { return static_cast<double>(n.value); },
            [&](const te::FloatImm& n) { return Round(n.value, t); },
            [&](const te::VarRef& n) {
              auto it = env_.find(n.var.get());
              if (it == env_.end()) return Fail("unbound variable " + n.var->name);
              return it->second;
            },
            [&](const te::Binary& n) {
              if (n.op == te::BinOp::kAnd) return Eval(n.a, l) != 0 && Eval(n.b, l) != 0 ? 1.0 : 0.0;
              if (n.op == te::BinOp::kOr) return Eval(n.a, l) != 0 || Eval(n.b, l) != 0 ? 1.0 : 0.0;
              double a = Eval(n.a, l), b = Eval(n.b, l);
              return Round(Binary(n.op, a, b, n.a.dtype()), t);
            },
            [&](const te::Not& n) { return Eval(n.a, l) != 0 ? 0.0 : 1.0; },
            [&](const te::Select& n) {
              return Eval(n.cond, l) != 0 ? Eval(n.true_value, l) : Eval(n.false_value, l);
            },
            [&](const te::Cast& n) {
              double v = Eval(n.value, l);
              if (t.is_int() && n.value.dtype().is_float()) v = std::trunc(v);
              return Round(v, t);
            },
            [&](const te::Call& n) {
              std::vector<double> x;
              for (const Expr& a : n.args) x.push_back(Eval(a, l));
              return Round(Intrinsic(n.fn, x), t);
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
