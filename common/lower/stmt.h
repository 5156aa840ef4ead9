// The lowered program: a loop nest over buffers. Produced by
// common/lower (State -> LoweredFunc), consumed by common/codegen.
//
// Statement kinds are a closed set listed once in `StmtVariant`.
// Loops always start at 0 and have a constant extent.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "common/te/buffer.h"
#include "common/te/expr.h"

namespace tuneforge::lower {

using te::Buffer;
using te::Expr;
using te::Var;

struct StmtNode;
// Nullable handle to an immutable statement node.
class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
  explicit operator bool() const { return node_ != nullptr; }
  const StmtNode* get() const { return node_.get(); }
  const StmtNode& operator*() const { return *node_; }
  template <class T>
  const T* as() const;
  bool same_as(const Stmt& other) const { return node_ == other.node_; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

enum class ForKind : uint8_t {
  kSerial,
  kParallel,    // iterations run on the runtime thread pool
  kVectorized,  // left only when the body could not become vector ops
  kUnrolled,    // left only when unrolling was not done in lowering
  kRolled,      // serial, and code generation must not unroll or vectorize it
  kVThread,
  kBlockX, kBlockY, kBlockZ, kThreadX, kThreadY, kThreadZ,  // GPU bindings
};
const char* ForKindName(ForKind kind);
// blockIdx.* / threadIdx.* (not vthread: that is a loop in each thread).
inline bool IsGpuBinding(ForKind kind) { return kind >= ForKind::kBlockX; }

// for (var = 0; var < extent; ++var) body
struct For { Var var; int64_t extent; ForKind kind; Stmt body; };
// buffer[indices] = value. A vector value stores lanes at a Ramp index
// (contiguous) or a vector index (scatter). One index per dimension before
// flattening, one flat index after.
struct Store { Buffer buffer; std::vector<Expr> indices; Expr value; };
// A temporary buffer live for `body`.
struct Allocate { Buffer buffer; Stmt body; };
// else_case may be null.
struct IfThenElse { Expr condition; Stmt then_case; Stmt else_case; };
struct Seq { std::vector<Stmt> stmts; };
// Binds var = value in body (a derived loop index, a hoisted expression).
struct LetStmt { Var var; Expr value; Stmt body; };

using StmtVariant = std::variant<For, Store, Allocate, IfThenElse, Seq, LetStmt>;

struct StmtNode {
  StmtVariant v;
};

template <class T>
const T* Stmt::as() const {
  return node_ ? std::get_if<T>(&node_->v) : nullptr;
}

Stmt MakeFor(Var var, int64_t extent, ForKind kind, Stmt body);
Stmt MakeStore(Buffer buffer, std::vector<Expr> indices, Expr value);
Stmt MakeAllocate(Buffer buffer, Stmt body);
Stmt MakeIf(Expr condition, Stmt then_case, Stmt else_case = Stmt());
// Flattens nested Seqs and drops null statements; a single statement is
// returned as is.
Stmt MakeSeq(std::vector<Stmt> stmts);
Stmt MakeLet(Var var, Expr value, Stmt body);

// A kernel: void-free C ABI `int32_t name(void** args)`, args[i] pointing at
// the data of `args[i]` buffer; returns 0, or non-zero when a temporary
// allocation failed.
//
// Layout rewrite: where stages read only constant inputs (weights), their
// values are computed once by `prepack`, a second function over the same
// `args`, into buffers listed after the outputs (one per such stage, in the
// layout the kernel reads: one slice per iteration of the loops its region
// moves with). A caller allocates those, runs `prepack` once after filling
// the constants, then the kernel as often as it likes.
struct LoweredFunc {
  std::string name;
  std::vector<Buffer> args;  // inputs in DAG order, outputs, then packed constants
  Stmt body;
  Stmt prepack = {};         // null when nothing is precomputed
  int num_packed = 0;        // the packed buffers at the end of `args`

  std::string prepack_name() const { return name + "_prepack"; }
  // The prepack as a function of its own (same arguments); needs `prepack`.
  LoweredFunc prepack_func() const { return LoweredFunc{prepack_name(), args, prepack}; }
};

}  // namespace tuneforge::lower
