#include "common/codegen/llvm/validate.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/overloaded.h"
#include "common/te/buffer.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::codegen {
namespace {

using lower::Stmt;
using te::DType;
using te::Expr;

bool IsGpuKind(lower::ForKind kind) {
  switch (kind) {
    case lower::ForKind::kSerial:
    case lower::ForKind::kParallel:
    case lower::ForKind::kVectorized:
    case lower::ForKind::kUnrolled:
    case lower::ForKind::kRolled:
      return false;
    case lower::ForKind::kVThread:
    case lower::ForKind::kBlockX:
    case lower::ForKind::kBlockY:
    case lower::ForKind::kBlockZ:
    case lower::ForKind::kThreadX:
    case lower::ForKind::kThreadY:
    case lower::ForKind::kThreadZ:
      return true;
  }
  return true;
}

bool IsValidSymbol(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// Walks the program with the variables and buffers in scope. Scopes are
// counted so that a node bound twice (shadowing) is released correctly.
class Validator {
 public:
  explicit Validator(const lower::LoweredFunc& func) : func_(func) {}

  absl::Status Run() {
    if (!IsValidSymbol(func_.name)) {
      return Error(absl::StrCat("kernel name '", func_.name,
                                "' is not a valid symbol; use letters, digits, '_' and '.', "
                                "not starting with a digit"));
    }
    // LLVM reserves llvm.*; tuneforge_* are the runtime's symbols.
    if (absl::StartsWith(func_.name, "llvm.") || absl::StartsWith(func_.name, "tuneforge_")) {
      return Error(absl::StrCat("kernel name '", func_.name,
                                "' is reserved (llvm.* and tuneforge_* are taken); rename it"));
    }
    for (size_t i = 0; i < func_.args.size(); ++i) {
      if (!func_.args[i]) return Error(absl::StrCat("argument ", i, " is a null buffer"));
      ++buffers_[func_.args[i].get()];
    }
    return CheckStmt(func_.body);
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("codegen of kernel '", func_.name, "': ", what));
  }

  absl::Status CheckBufferAccess(const te::Buffer& buffer, const std::vector<Expr>& indices,
                                 DType value_type, const char* access) {
    if (!buffer) return Error(absl::StrCat(access, " of a null buffer"));
    if (!buffers_.contains(buffer.get())) {
      return Error(absl::StrCat(access, " of buffer '", buffer->name,
                                "', which is neither a kernel argument nor allocated around the "
                                "access; add it to LoweredFunc::args or wrap the use in an "
                                "Allocate"));
    }
    if (indices.size() != 1) {
      return Error(absl::StrCat(access, " of buffer '", buffer->name, "' has ", indices.size(),
                                " indices; code generation needs flattened buffers (one flat "
                                "element offset): run the flattening pass of lowering"));
    }
    DType index_type = indices[0].dtype();
    if (!index_type.is_int()) {
      return Error(absl::StrCat(access, " of buffer '", buffer->name, "' has an index of type ",
                                te::ToString(index_type), "; indices must be integers"));
    }
    if (index_type.lanes != value_type.lanes) {
      return Error(absl::StrCat(access, " of buffer '", buffer->name, "': the index has ",
                                index_type.lanes, " lanes but the value has ", value_type.lanes,
                                "; use a Ramp/vector index with one lane per value lane"));
    }
    if (value_type.scalar != buffer->dtype.scalar) {
      return Error(absl::StrCat(access, " of buffer '", buffer->name, "' (",
                                te::ToString(buffer->dtype), ") with a value of type ",
                                te::ToString(value_type), "; insert a Cast"));
    }
    return CheckExpr(indices[0]);
  }

  absl::Status CheckBinary(const te::Binary& n, const Expr& e) {
    DType a = n.a.dtype(), b = n.b.dtype();
    std::string op = te::BinOpSymbol(n.op);
    if (a.scalar != b.scalar || (a.lanes != b.lanes && a.lanes != 1 && b.lanes != 1)) {
      return Error(absl::StrCat("operands of '", op, "' have types ", te::ToString(a), " and ",
                                te::ToString(b), " in ", te::ToString(e),
                                "; cast one side so both have the same type"));
    }
    if (te::IsLogical(n.op) && !a.is_bool()) {
      return Error(absl::StrCat("'", op, "' needs bool operands, got ", te::ToString(a), " in ",
                                te::ToString(e), "; compare with 0 first"));
    }
    bool arithmetic = !te::IsLogical(n.op) && !te::IsComparison(n.op) &&
                      n.op != te::BinOp::kMin && n.op != te::BinOp::kMax;
    if (arithmetic && a.is_bool()) {
      return Error(absl::StrCat("arithmetic '", op, "' on bool operands in ", te::ToString(e),
                                "; cast them to an integer type first"));
    }
    return absl::OkStatus();
  }

  absl::Status CheckNode(const Expr& e) {
    return std::visit(
        Overloaded{
            [&](const te::IntImm&) { return absl::OkStatus(); },
            [&](const te::FloatImm&) { return absl::OkStatus(); },
            [&](const te::VarRef& n) {
              if (!n.var || !vars_.contains(n.var.get())) {
                return Error(absl::StrCat("variable '", n.var ? n.var->name : "<null>",
                                          "' is used outside the loop or LetStmt that binds it"));
              }
              return absl::OkStatus();
            },
            [&](const te::Binary& n) { return CheckBinary(n, e); },
            [&](const te::Not& n) {
              if (n.a.dtype().is_bool()) return absl::OkStatus();
              return Error(absl::StrCat("'!' needs a bool operand in ", te::ToString(e)));
            },
            [&](const te::Select& n) {
              DType c = n.cond.dtype(), t = n.true_value.dtype(), f = n.false_value.dtype();
              if (!c.is_bool() || (c.lanes != 1 && c.lanes != e.dtype().lanes)) {
                return Error(absl::StrCat("select condition of type ", te::ToString(c), " in ",
                                          te::ToString(e),
                                          "; it must be bool with 1 lane or as many as the value"));
              }
              if (t != f) {
                return Error(absl::StrCat("select arms have types ", te::ToString(t), " and ",
                                          te::ToString(f), " in ", te::ToString(e),
                                          "; cast one arm"));
              }
              return absl::OkStatus();
            },
            [&](const te::Cast& n) {
              int from = n.value.dtype().lanes, to = e.dtype().lanes;
              if (from == to || from == 1) return absl::OkStatus();
              return Error(absl::StrCat("cast from ", te::ToString(n.value.dtype()), " to ",
                                        te::ToString(e.dtype()), " changes the lane count"));
            },
            [&](const te::Call& n) {
              if (static_cast<int>(n.args.size()) != te::IntrinsicArity(n.fn)) {
                return Error(absl::StrCat(te::IntrinsicName(n.fn), " takes ",
                                          te::IntrinsicArity(n.fn), " argument(s), got ",
                                          n.args.size()));
              }
              for (const Expr& a : n.args) {
                bool int_abs = n.fn == te::Intrinsic::kAbs && a.dtype().is_int();
                if (a.dtype() != e.dtype() ||
                    (!a.dtype().is_float() && !int_abs)) {
                  return Error(absl::StrCat(te::IntrinsicName(n.fn), " of ",
                                            te::ToString(a.dtype()), " in ", te::ToString(e),
                                            "; math functions take floats: cast the argument"));
                }
              }
              return absl::OkStatus();
            },
            [&](const te::TensorRead& n) {
              return Error(absl::StrCat(
                  "TensorRead of tensor '", n.tensor ? n.tensor->name : "<null>",
                  "' reached code generation; the program is not lowered: build the LoweredFunc "
                  "with lower::Lower, which turns tensor reads into BufferLoads"));
            },
            [&](const te::Reduce& n) {
              return Error(absl::StrCat(
                  "Reduce (", te::CombinerName(n.combiner),
                  ") reached code generation; reductions must become loops in lowering "
                  "(lower::Lower)"));
            },
            [&](const te::BufferLoad& n) {
              return CheckBufferAccess(n.buffer, n.indices, e.dtype(), "load");
            },
            [&](const te::Ramp& n) {
              if (n.base.dtype().is_int() && n.base.dtype().lanes == 1 && n.lanes >= 1) {
                return absl::OkStatus();
              }
              return Error(absl::StrCat("ramp ", te::ToString(e),
                                        " needs a scalar integer base and lanes >= 1"));
            },
            [&](const te::Broadcast& n) {
              if (n.value.dtype().lanes == 1 && n.lanes >= 1) return absl::OkStatus();
              return Error(absl::StrCat("broadcast ", te::ToString(e),
                                        " needs a scalar value and lanes >= 1"));
            },
        },
        e->v);
  }

  absl::Status CheckExpr(const Expr& e) {
    if (!e) return Error("a null expression");
    absl::Status status = CheckNode(e);
    if (!status.ok()) return status;
    // BufferLoad checks its own index (CheckBufferAccess); others recurse here.
    if (e.as<te::BufferLoad>()) return absl::OkStatus();
    te::ForEachChild(e, [&](const Expr& c) {
      if (status.ok()) status = CheckExpr(c);
    });
    return status;
  }

  absl::Status CheckFor(const lower::For& n) {
    std::string var = n.var ? n.var->name : "<null>";
    if (IsGpuKind(n.kind)) {
      return Error(absl::StrCat("loop '", var, "' is bound to ", lower::ForKindName(n.kind),
                                ", which cannot be compiled for CPU; drop the GPU bindings from "
                                "the schedule or build for a CUDA target"));
    }
    if (!n.var || !n.var->dtype.is_int() || n.var->dtype.lanes != 1) {
      return Error(absl::StrCat("loop variable '", var, "' must be a scalar integer"));
    }
    if (n.extent < 0) {
      return Error(absl::StrCat("loop '", var, "' has a negative extent ", n.extent));
    }
    ++vars_[n.var.get()];
    absl::Status status = CheckStmt(n.body);
    Release(vars_, n.var.get());
    return status;
  }

  absl::Status CheckLet(const lower::LetStmt& n) {
    if (!n.var || !n.value) return Error("a LetStmt without variable or value");
    if (n.var->dtype != n.value.dtype()) {
      return Error(absl::StrCat("let '", n.var->name, "' of type ", te::ToString(n.var->dtype),
                                " is bound to a value of type ", te::ToString(n.value.dtype())));
    }
    absl::Status status = CheckExpr(n.value);
    if (!status.ok()) return status;
    ++vars_[n.var.get()];
    status = CheckStmt(n.body);
    Release(vars_, n.var.get());
    return status;
  }

  absl::Status CheckAllocate(const lower::Allocate& n) {
    if (!n.buffer) return Error("an Allocate of a null buffer");
    for (int64_t d : n.buffer->shape) {
      if (d <= 0) {
        return Error(absl::StrCat("allocation of '", n.buffer->name,
                                  "' has a non-positive dimension ", d));
      }
    }
    ++buffers_[n.buffer.get()];
    absl::Status status = CheckStmt(n.body);
    Release(buffers_, n.buffer.get());
    return status;
  }

  absl::Status CheckStmt(const Stmt& s) {
    if (!s) return absl::OkStatus();
    return std::visit(
        Overloaded{
            [&](const lower::For& n) { return CheckFor(n); },
            [&](const lower::Store& n) {
              if (!n.value) return Error("a store without a value");
              absl::Status status = CheckBufferAccess(n.buffer, n.indices, n.value.dtype(), "store");
              return status.ok() ? CheckExpr(n.value) : status;
            },
            [&](const lower::Allocate& n) { return CheckAllocate(n); },
            [&](const lower::IfThenElse& n) {
              if (!n.condition || n.condition.dtype() != DType::Bool()) {
                return Error("an if condition must be a scalar bool");
              }
              absl::Status status = CheckExpr(n.condition);
              if (status.ok()) status = CheckStmt(n.then_case);
              if (status.ok()) status = CheckStmt(n.else_case);
              return status;
            },
            [&](const lower::Seq& n) {
              for (const Stmt& c : n.stmts) {
                absl::Status status = CheckStmt(c);
                if (!status.ok()) return status;
              }
              return absl::OkStatus();
            },
            [&](const lower::LetStmt& n) { return CheckLet(n); },
        },
        s.get()->v);
  }

  template <class Key>
  static void Release(absl::flat_hash_map<Key, int>& counts, Key key) {
    if (--counts[key] == 0) counts.erase(key);
  }

  const lower::LoweredFunc& func_;
  absl::flat_hash_map<const te::VarNode*, int> vars_;
  absl::flat_hash_map<const te::BufferNode*, int> buffers_;
};

}  // namespace

absl::Status ValidateForCpu(const lower::LoweredFunc& func) { return Validator(func).Run(); }

}  // namespace tuneforge::codegen
