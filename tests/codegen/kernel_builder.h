// Test helpers: build lowered functions by hand, concisely, and run them.
//
//   auto A = Buf("A", {16});  auto B = Buf("B", {16});
//   LoweredFunc f = Func("copy", {A, B}, Loop("i", 16, [&](Expr i) {
//     return St(B, i, Ld(A, i) * 2.0f);
//   }));
//   std::vector<float> a(16, 1), b(16);
//   ASSERT_OK(RunKernel(f, {a.data(), b.data()}));
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
#include "common/lower/stmt.h"
#include "common/te/buffer.h"
#include "common/te/expr.h"

namespace tuneforge::codegen::testing {

using lower::ForKind;
using lower::LoweredFunc;
using lower::Stmt;
using te::DType;
using te::Expr;

te::Buffer Buf(std::string name, std::vector<int64_t> shape, DType dtype = DType::Float32(),
               std::string scope = "global");

// Load of buffer element(s): the index's lanes give the value's lanes.
Expr Ld(const te::Buffer& buffer, Expr index);
Stmt St(const te::Buffer& buffer, Expr index, Expr value);
Expr Vec(Expr base, int lanes, int64_t stride = 1);  // Ramp
Expr Splat(Expr value, int lanes);                   // Broadcast
Expr I32(int64_t v);
Expr I8(int64_t v);
Expr F64(double v);

// for (name = 0; name < extent; ++name) body(name)
Stmt Loop(const std::string& name, int64_t extent, const std::function<Stmt(Expr)>& body,
          ForKind kind = ForKind::kSerial);
Stmt Let(const std::string& name, Expr value, const std::function<Stmt(Expr)>& body);
Stmt Seq(std::vector<Stmt> stmts);
LoweredFunc Func(std::string name, std::vector<te::Buffer> args, Stmt body);

// JIT-compiles and runs once; the kernel's return code.
absl::StatusOr<int32_t> RunKernel(const LoweredFunc& func, std::vector<void*> args,
                                  const CompileOptions& options = {});

// A buffer of `bytes` whose first (or last) byte touches a PROT_NONE page,
// so any access just before (or after) it faults.
class GuardedBuffer {
 public:
  enum class Guard { kBefore, kAfter };
  GuardedBuffer(size_t bytes, Guard guard);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  void* data() const { return data_; }
  template <class T>
  T* as() const { return static_cast<T*>(data_); }

 private:
  void* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
  void* data_ = nullptr;
};

// Resident memory of this process.
int64_t ResidentBytes();

}  // namespace tuneforge::codegen::testing
