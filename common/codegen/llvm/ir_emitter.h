// Lowered program -> LLVM IR of one module. One IrEmitter per compile; its
// member functions are split by job over several files (named per section).
// Validation (validate.h) has run before: emitters assume a well-typed
// program and have no error paths.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/codegen/llvm/value_cache.h"
#include "common/codegen/target.h"
#include "common/lower/stmt.h"
#include "common/te/arith/interval.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace tuneforge::codegen {

// The function being emitted: the kernel body or an outlined parallel task.
struct FunctionFrame {
  llvm::Function* function = nullptr;
  // Allocas go at the start of the entry block, so each invocation (each
  // thread, for tasks) gets its own and SROA can promote them to registers.
  llvm::BasicBlock* entry = nullptr;
  // tuneforge_alloc results live at the current point, innermost last; an
  // error return frees them.
  std::vector<llvm::Value*> heap_temporaries;
};

class IrEmitter {
 public:
  IrEmitter(llvm::Module& module, const Target& target);

  // Defines `extern "C" int32_t <func.name>(void** args)` (kernel_function.cc).
  void EmitKernel(const lower::LoweredFunc& func);

 private:
  // ---- types and constants (types.cc) ----
  llvm::Type* ValueType(te::DType t);    // bool -> i1
  llvm::Type* StorageType(te::DType t);  // bool -> i8 (one byte in memory)
  llvm::Value* ConstantOf(te::DType t, int64_t value);
  llvm::Value* FloatConstantOf(te::DType t, double value);
  // A scalar becomes a vector of `lanes` copies; vectors are returned as is.
  llvm::Value* MatchLanes(llvm::Value* v, int lanes);

  // ---- functions and alias scopes (kernel_function.cc) ----
  void SetFunctionAttributes(llvm::Function* fn);
  llvm::AllocaInst* CreateEntryAlloca(llvm::Type* type, uint64_t align, const std::string& name);
  void CreateAliasScopes(const lower::LoweredFunc& func);
  // Tags a load/store/gather/scatter of `buffer` with its alias scope.
  void AnnotateAccess(llvm::Value* access, const te::Buffer& buffer);

  // ---- expressions (expr_emitter.cc) ----
  llvm::Value* Emit(const te::Expr& e);
  // The cached value for `key`, or make() remembered under it. Under a
  // select mask nothing is cached (divisions there depend on the mask).
  template <class Make>
  llvm::Value* Cached(const ValueCache::Key& key, Make make) {
    if (mask_) return make();
    if (llvm::Value* v = cache_.Find(key)) return v;
    llvm::Value* v = make();
    cache_.Insert(key, v);
    return v;
  }
  llvm::Value* EmitNode(const te::IntImm& n, te::DType t);
  llvm::Value* EmitNode(const te::FloatImm& n, te::DType t);
  llvm::Value* EmitNode(const te::VarRef& n, te::DType t);
  llvm::Value* EmitNode(const te::Binary& n, te::DType t);
  llvm::Value* EmitNode(const te::Not& n, te::DType t);
  llvm::Value* EmitNode(const te::Select& n, te::DType t);
  llvm::Value* EmitNode(const te::Cast& n, te::DType t);
  llvm::Value* EmitNode(const te::Call& n, te::DType t);
  llvm::Value* EmitNode(const te::TensorRead& n, te::DType t);
  llvm::Value* EmitNode(const te::Reduce& n, te::DType t);
  llvm::Value* EmitNode(const te::BufferLoad& n, te::DType t);
  llvm::Value* EmitNode(const te::Ramp& n, te::DType t);
  llvm::Value* EmitNode(const te::Broadcast& n, te::DType t);
  llvm::Value* EmitCast(llvm::Value* v, te::DType from, te::DType to);
  llvm::Value* EmitRamp(llvm::Value* scalar_base, int64_t stride, te::DType t);
  // Select whose arms must not run when not taken (loads, divisions).
  llvm::Value* EmitGuardedSelect(const te::Select& n, te::DType t);
  // Whether `e` must not be evaluated where it was not selected: an integer
  // division by a non-constant divisor, a load (under a per-lane condition
  // only one not known to stay inside its buffer).
  bool NeedsGuard(const te::Expr& e, bool per_lane) const;

  // ---- binary operators (binary_ops.cc) ----
  llvm::Value* EmitBinary(const te::Binary& n, llvm::Value* a, llvm::Value* b, te::DType operand);
  llvm::Value* EmitArithmetic(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t,
                              const te::Expr& divisor);
  llvm::Value* EmitIntDivision(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t,
                               const te::Expr& divisor);
  llvm::Value* EmitFloorDivisionByConstant(te::BinOp op, llvm::Value* a, int64_t divisor,
                                           te::DType t);
  llvm::Value* EmitCompare(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType operand);
  llvm::Value* EmitMinMax(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t);

  // ---- math functions (intrinsics.cc) ----
  llvm::Value* EmitMath(te::Intrinsic fn, const std::vector<llvm::Value*>& args, te::DType t);
  llvm::Value* EmitIntrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args);
  // Calls the scalar libm function on each lane (no LLVM intrinsic exists).
  llvm::Value* EmitPerLaneLibmCall(const char* float_name, const char* double_name,
                                   llvm::Value* arg, te::DType t);

  // ---- memory (memory_access.cc) ----
  llvm::Value* ElementPointer(const te::Buffer& buffer, llvm::Value* index);
  // Whether every lane of `index` lies inside `buffer` for all values of the
  // enclosing loops (var_bounds_): such a load is safe outside its select's
  // lanes, so it needs no mask or branch.
  bool InBounds(const te::Buffer& buffer, const te::Expr& index) const;
  llvm::Value* EmitScalarLoad(const te::Buffer& buffer, const te::Expr& index);
  llvm::Value* EmitVectorLoad(const te::Buffer& buffer, const te::Expr& index, te::DType t);
  // Ramp(base, stride, lanes) with a small stride: the span's contiguous
  // (masked) load and a shuffle; in storage form.
  llvm::Value* EmitStridedLoad(const te::Buffer& buffer, const te::Expr& base, int64_t stride, te::DType t,
                               llvm::Value* mask);
  llvm::Value* EmitStridedLoadInParts(const te::Buffer& buffer, const te::Expr& base, int64_t stride, te::DType t,
                                      llvm::Value* mask, int part_lanes);
  // Elements a span of `span` is loaded as (memory_access.cc says why).
  int SpanLoadWidth(int span, int element_bytes) const;
  void EmitStore(const lower::Store& n);
  // Memory value (i8 for bools) <-> register value (i1 for bools).
  llvm::Value* FromStorage(llvm::Value* v, te::DType t);
  llvm::Value* ToStorage(llvm::Value* v, te::DType t);
  llvm::Value* AllLanes(int lanes);

  // ---- statements (stmt_emitter.cc) ----
  void EmitStmt(const lower::Stmt& s);
  void EmitFor(const lower::For& n);
  // for (var = begin; var < end; ++var) body. `begin`/`end` are i64.
  void EmitLoop(const lower::For& n, llvm::Value* begin, llvm::Value* end);
  void EmitAllocate(const lower::Allocate& n);
  void EmitIf(const lower::IfThenElse& n);
  void EmitLet(const lower::LetStmt& n);
  // var_bounds_[var] = range (or unbounded); returns the range it replaced,
  // which RestoreRange puts back.
  std::optional<te::arith::IntInterval> BindRange(const te::VarNode* var,
                                                  std::optional<te::arith::IntInterval> range);
  void RestoreRange(const te::VarNode* var, std::optional<te::arith::IntInterval> saved);
  // if (code != 0) { free live heap temporaries; return code; }
  void EmitReturnOnError(llvm::Value* code);
  llvm::MDNode* LoopMetadata(lower::ForKind kind);

  // ---- parallel loops (parallel_outline.cc) ----
  void EmitParallelFor(const lower::For& n);

  // ---- runtime functions (kernel_function.cc) ----
  llvm::FunctionCallee RuntimeParallelFor();
  llvm::FunctionCallee RuntimeAlloc();
  llvm::FunctionCallee RuntimeFree();

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  const Target& target_;
  std::string kernel_name_;
  absl::flat_hash_map<const te::VarNode*, llvm::Value*> vars_;
  // The ranges of the loop variables (and bounded lets) in scope.
  te::arith::VarBounds var_bounds_;
  absl::flat_hash_map<const te::BufferNode*, llvm::Value*> buffers_;
  absl::flat_hash_map<const te::BufferNode*, llvm::MDNode*> alias_scope_;
  absl::flat_hash_map<const te::BufferNode*, llvm::MDNode*> noalias_;
  FunctionFrame* frame_ = nullptr;
  ValueCache cache_;
  // Inside the arms of a vector select: the lanes whose loads may happen.
  llvm::Value* mask_ = nullptr;
  int next_task_id_ = 0;
};

// The largest temporary placed on the stack; bigger ones use tuneforge_alloc.
inline constexpr int64_t kMaxStackTemporaryBytes = 64 * 1024;

}  // namespace tuneforge::codegen
