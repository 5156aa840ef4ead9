// Programs the CPU code generator must reject, each with a message that
// names the problem and the fix.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "common/te/tensor.h"
#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using ::testing::HasSubstr;

absl::Status CompileError(const LoweredFunc& f) {
  absl::StatusOr<CompiledObject> object = CompileToObject(f, Target::Host());
  return object.ok() ? absl::OkStatus() : object.status();
}

TEST(ErrorsTest, GpuBindingsCannotBeCompiledForCpu) {
  for (ForKind kind : {ForKind::kBlockX, ForKind::kBlockY, ForKind::kBlockZ, ForKind::kThreadX,
                       ForKind::kThreadY, ForKind::kThreadZ, ForKind::kVThread}) {
    te::Buffer A = Buf("A", {8});
    auto f = Func("gpu", {A}, Loop("i", 8, [&](Expr i) { return St(A, i, Expr(1.0f)); }, kind));
    absl::Status s = CompileError(f);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), HasSubstr("cannot be compiled for CPU"));
    EXPECT_THAT(std::string(s.message()), HasSubstr(lower::ForKindName(kind)));
    EXPECT_THAT(std::string(s.message()), HasSubstr("loop 'i'"));
  }
}

TEST(ErrorsTest, TensorReadMustBeLoweredFirst) {
  te::Tensor T = te::Placeholder("Tin", {8});
  te::Buffer A = Buf("A", {8});
  auto f = Func("unlowered", {A}, Loop("i", 8, [&](Expr i) { return St(A, i, te::Read(T, {i})); }));
  absl::Status s = CompileError(f);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("TensorRead of tensor 'Tin'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("lower::Lower"));
}

TEST(ErrorsTest, ReduceMustBeLoweredFirst) {
  te::Buffer A = Buf("A", {8}), B = Buf("B", {1});
  te::IterVar k{te::MakeVar("k"), 8};
  auto f = Func("reduce", {A, B}, St(B, 0, te::Sum(Ld(A, k.var), {k})));
  absl::Status s = CompileError(f);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Reduce (sum)"));
}

TEST(ErrorsTest, BuffersMustBeFlattened) {
  te::Buffer A = Buf("A", {4, 4});
  auto f = Func("unflat", {A}, Loop("i", 4, [&](Expr i) {
                  return lower::MakeStore(A, {i, i}, Expr(1.0f));
                }));
  absl::Status s = CompileError(f);
  EXPECT_THAT(std::string(s.message()), HasSubstr("buffer 'A' has 2 indices"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("flatten"));
}

TEST(ErrorsTest, UnknownBufferAndUnboundVariable) {
  te::Buffer A = Buf("A", {4}), Stray = Buf("Stray", {4});
  absl::Status s = CompileError(Func("stray", {A}, St(A, 0, Ld(Stray, 0))));
  EXPECT_THAT(std::string(s.message()), HasSubstr("buffer 'Stray'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("neither a kernel argument nor allocated"));

  te::Var loose = te::MakeVar("loose");
  s = CompileError(Func("unbound", {A}, St(A, Expr(loose), Expr(1.0f))));
  EXPECT_THAT(std::string(s.message()), HasSubstr("variable 'loose'"));
}

TEST(ErrorsTest, TypeMismatches) {
  te::Buffer F = Buf("F", {4}), I = Buf("I", {4}, DType::Int32());
  // A float value stored into an int32 buffer.
  absl::Status s = CompileError(Func("store_type", {F, I}, St(I, 0, Ld(F, 0))));
  EXPECT_THAT(std::string(s.message()), HasSubstr("store of buffer 'I' (int32)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("insert a Cast"));
  // A vector value at a scalar index.
  s = CompileError(Func("lanes", {F}, St(F, 0, Ld(F, Vec(0, 4)))));
  EXPECT_THAT(std::string(s.message()), HasSubstr("the index has 1 lanes but the value has 4"));
  // Arithmetic on bools.
  te::Buffer P = Buf("P", {2}, DType::Bool());
  Expr sum = Expr(std::make_shared<const te::ExprNode>(
      te::ExprNode{DType::Bool(), te::Binary{te::BinOp::kAdd, Ld(P, 0), Ld(P, 1)}}));
  s = CompileError(Func("bool_add", {P}, St(P, 0, sum)));
  EXPECT_THAT(std::string(s.message()), HasSubstr("arithmetic '+' on bool"));
}

TEST(ErrorsTest, BadKernelNameAndOptLevel) {
  te::Buffer A = Buf("A", {1});
  absl::Status s = CompileError(Func("9 lives", {A}, St(A, 0, Expr(1.0f))));
  EXPECT_THAT(std::string(s.message()), HasSubstr("not a valid symbol"));
  s = CompileError(Func("tuneforge_alloc", {A}, St(A, 0, Expr(1.0f))));
  EXPECT_THAT(std::string(s.message()), HasSubstr("is reserved"));
  s = CompileError(Func("llvm.memset", {A}, St(A, 0, Expr(1.0f))));
  EXPECT_THAT(std::string(s.message()), HasSubstr("is reserved"));
  absl::StatusOr<CompiledObject> o =
      CompileToObject(Func("ok", {A}, St(A, 0, Expr(1.0f))), Target::Host(), {.opt_level = 7});
  ASSERT_FALSE(o.ok());
  EXPECT_THAT(std::string(o.status().message()), HasSubstr("opt_level 7 is out of range"));
}

TEST(ErrorsTest, LoadObjectRejectsGarbageForeignAndMismatchedObjects) {
  CompiledObject garbage{"k", "definitely not an ELF file", "x86_64-pc-linux-gnu", 0};
  absl::StatusOr<std::unique_ptr<LoadedKernel>> k = LoadObject(garbage);
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("not an object file"));

  te::Buffer A = Buf("A", {4});
  LoweredFunc f = Func("foreign", {A}, St(A, 0, Expr(1.0f)));
  absl::StatusOr<Target> arm = Target::Parse("aarch64");
  ASSERT_TRUE(arm.ok()) << arm.status();
  absl::StatusOr<CompiledObject> arm_object = CompileToObject(f, *arm);
  ASSERT_TRUE(arm_object.ok()) << arm_object.status();
  k = LoadObject(*arm_object);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("compiled for aarch64"));

  absl::StatusOr<CompiledObject> host_object = CompileToObject(f, Target::Host());
  ASSERT_TRUE(host_object.ok()) << host_object.status();
  host_object->symbol = "other_name";
  k = LoadObject(*host_object);
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("does not define a function 'other_name'"));
}

}  // namespace
}  // namespace tuneforge::codegen::testing
