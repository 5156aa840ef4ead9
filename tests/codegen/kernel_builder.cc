#include "tests/codegen/kernel_builder.h"

#include <sys/mman.h>
#include <unistd.h>

#include <fstream>

namespace tuneforge::codegen::testing {

te::Buffer Buf(std::string name, std::vector<int64_t> shape, DType dtype, std::string scope) {
  auto node = std::make_shared<te::BufferNode>();
  node->name = std::move(name);
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->scope = std::move(scope);
  return node;
}

Expr Ld(const te::Buffer& buffer, Expr index) {
  DType t = buffer->dtype.with_lanes(index.dtype().lanes);
  return te::MakeBufferLoad(buffer, {std::move(index)}, t);
}

Stmt St(const te::Buffer& buffer, Expr index, Expr value) {
  return lower::MakeStore(buffer, {std::move(index)}, std::move(value));
}

Expr Vec(Expr base, int lanes, int64_t stride) { return te::MakeRamp(std::move(base), stride, lanes); }
Expr Splat(Expr value, int lanes) { return te::MakeBroadcast(std::move(value), lanes); }
Expr I32(int64_t v) { return te::IntConst(v, DType::Int32()); }
Expr I8(int64_t v) { return te::IntConst(v, DType::Int8()); }
Expr F64(double v) { return te::FloatConst(v, DType::Float64()); }

Stmt Loop(const std::string& name, int64_t extent, const std::function<Stmt(Expr)>& body,
          ForKind kind) {
  te::Var v = te::MakeVar(name);
  return lower::MakeFor(v, extent, kind, body(Expr(v)));
}

Stmt Let(const std::string& name, Expr value, const std::function<Stmt(Expr)>& body) {
  te::Var v = te::MakeVar(name, value.dtype());
  return lower::MakeLet(v, value, body(Expr(v)));
}

Stmt Seq(std::vector<Stmt> stmts) { return lower::MakeSeq(std::move(stmts)); }

LoweredFunc Func(std::string name, std::vector<te::Buffer> args, Stmt body) {
  return LoweredFunc{std::move(name), std::move(args), std::move(body)};
}

absl::StatusOr<int32_t> RunKernel(const LoweredFunc& func, std::vector<void*> args,
                                  const CompileOptions& options) {
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = JitCompile(func, options);
  if (!kernel.ok()) return kernel.status();
  return (**kernel)(args.data());
}

GuardedBuffer::GuardedBuffer(size_t bytes, Guard guard) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t data_pages = (bytes + page - 1) / page;
  mapping_bytes_ = (data_pages + 2) * page;  // a guard page on each side
  mapping_ = mmap(nullptr, mapping_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char* first_data_page = static_cast<char*>(mapping_) + page;
  mprotect(first_data_page, data_pages * page, PROT_READ | PROT_WRITE);
  data_ = guard == Guard::kBefore ? first_data_page
                                  : first_data_page + data_pages * page - bytes;
}

GuardedBuffer::~GuardedBuffer() { munmap(mapping_, mapping_bytes_); }

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t total_pages = 0, resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

}  // namespace tuneforge::codegen::testing
