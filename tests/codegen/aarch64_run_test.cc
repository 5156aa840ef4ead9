// Runs AArch64 code for real: the object is linked with the runtime
// (cross-compiled) and a small driver, or linked by tuneforge into a shared
// object that a driver loads with dlopen, and run under qemu-aarch64.
// Skipped where the cross toolchain or qemu-user is not installed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

namespace fs = std::filesystem;

bool HaveTool(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// Checks every element and prints the first mismatch; exit code 0 = pass.
constexpr char kDriver[] = R"(
#include <stdio.h>
#include <stdint.h>
int32_t scaled_rows(void** args);
int main(void) {
  static float a[64 * 33], b[64 * 33];
  for (int i = 0; i < 64 * 33; ++i) a[i] = (float)(i % 97) * 0.5f;
  void* args[] = {a, b};
  int32_t rc = scaled_rows(args);
  if (rc != 0) { printf("kernel returned %d\n", rc); return 2; }
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 33; ++c) {
      float x = a[r * 33 + c], want = x * x + (float)r;
      if (b[r * 33 + c] != want) { printf("b[%d][%d] = %f, want %f\n", r, c, b[r * 33 + c], want); return 1; }
    }
  printf("ok\n");
  return 0;
}
)";

// The same check, the kernel loaded from a shared object the way a board's
// runner loads what the server linked for it.
constexpr char kDlopenDriver[] = R"(
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
int check(int32_t (*kernel)(void**));
int main(void) {
  void* lib = dlopen("./kernel.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) { printf("dlopen: %s\n", dlerror()); return 3; }
  int32_t (*kernel)(void**) = (int32_t (*)(void**))dlsym(lib, "scaled_rows");
  if (!kernel) { printf("no scaled_rows\n"); return 4; }
  return check(kernel);
}
)";

// b[r, c] = a[r, c]^2 + r over 64 x 33: parallel rows, 8-lane vectors
// (two NEON registers) for 32 columns and a scalar tail column.
CompiledObject ScaledRowsForAarch64() {
  te::Buffer A = Buf("A", {64, 33}), B = Buf("B", {64, 33});
  auto row = [&](Expr r, Expr index) {
    Expr x = Ld(A, index);
    Expr fr = te::MakeCast(DType::Float32().with_lanes(index.dtype().lanes), r);
    return St(B, index, x * x + fr);
  };
  LoweredFunc f = Func("scaled_rows", {A, B}, Loop("r", 64, [&](Expr r) {
                         return Seq({Loop("v", 4, [&](Expr v) { return row(r, Vec(r * 33 + v * 8, 8)); }),
                                     row(r, r * 33 + 32)});
                       }, ForKind::kParallel));
  absl::StatusOr<Target> arm = Target::Parse("aarch64:cores=4");
  EXPECT_TRUE(arm.ok()) << arm.status();
  absl::StatusOr<CompiledObject> object = CompileToObject(f, *arm);
  EXPECT_TRUE(object.ok()) << object.status();
  return object.ok() ? *object : CompiledObject{};
}

// Builds `driver` (C) with the cross-compiled runtime and `link` (shell
// after the objects are made), runs ./prog under qemu-aarch64; its output.
std::string BuildAndRun(const CompiledObject& kernel, const std::string& driver, const std::string& link,
                        int* status) {
  fs::path dir = fs::temp_directory_path() / ("tf_aarch64_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / (kernel.shared ? "kernel.so" : "kernel.o"), std::ios::binary) << kernel.object;
  std::ofstream(dir / "driver.c") << driver;
  fs::path runtime = fs::path(TF_TEST_DATA_DIR) / ".." / ".." / "common" / "runtime" / "parallel.cc";
  std::string root = (fs::path(TF_TEST_DATA_DIR) / ".." / "..").string();
  std::string build = "cd " + dir.string() + " && aarch64-linux-gnu-gcc -O1 -c driver.c -o driver.o" +
                      " && aarch64-linux-gnu-g++ -std=c++20 -O1 -I" + root + " -c " + runtime.string() +
                      " -o runtime.o && " + link + " >build.log 2>&1";
  EXPECT_EQ(std::system(build.c_str()), 0) << build;
  // The cross toolchain's loader and libraries, named: where Debian's arm64
  // libc is installed too (the aarch64 bundle's build), the loader would
  // find that other libc build through this machine's ld.so.cache.
  std::string run = "cd " + dir.string() +
                    " && TUNEFORGE_NUM_THREADS=4 qemu-aarch64 -L /usr/aarch64-linux-gnu"
                    " /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 --library-path /usr/aarch64-linux-gnu/lib"
                    " ./prog >run.log 2>&1";
  *status = std::system(run.c_str());
  std::ifstream log(dir / "run.log");
  std::string output((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return output;
}

TEST(Aarch64RunTest, ParallelVectorKernelRunsUnderQemu) {
  if (!HaveTool("aarch64-linux-gnu-g++") || !HaveTool("qemu-aarch64")) {
    GTEST_SKIP() << "needs g++-aarch64-linux-gnu and qemu-user";
  }
  int status = 0;
  std::string output = BuildAndRun(ScaledRowsForAarch64(), kDriver,
                                   "aarch64-linux-gnu-g++ driver.o runtime.o kernel.o -pthread -o prog", &status);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "ok\n");
}

// What a board gets: the server links the kernel into a shared object
// (LLD, in process); a program with no compiler or LLVM dlopens it and its
// runtime calls resolve against that program.
TEST(Aarch64RunTest, AServerLinkedSharedObjectIsLoadedWithDlopenUnderQemu) {
  if (!HaveTool("aarch64-linux-gnu-g++") || !HaveTool("qemu-aarch64")) {
    GTEST_SKIP() << "needs g++-aarch64-linux-gnu and qemu-user";
  }
  absl::StatusOr<CompiledObject> shared = LinkSharedObject(ScaledRowsForAarch64());
  ASSERT_TRUE(shared.ok()) << shared.status();
  ASSERT_TRUE(shared->shared);
  // An ELF shared object (e_type ET_DYN) for AArch64 (e_machine 183).
  ASSERT_GT(shared->object.size(), 20u);
  EXPECT_EQ(shared->object.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(static_cast<unsigned char>(shared->object[16]), 3);
  EXPECT_EQ(static_cast<unsigned char>(shared->object[18]), 183);
  // kDriver's check() is reused: its main is renamed out of the way.
  std::string checker = std::string(kDriver);
  checker.replace(checker.find("int32_t scaled_rows(void** args);"), 33, "");
  checker.replace(checker.find("int main(void) {"), 16, "int check(int32_t (*scaled_rows)(void**)) {");
  int status = 0;
  std::string output =
      BuildAndRun(*shared, std::string(kDlopenDriver) + checker,
                  "aarch64-linux-gnu-g++ driver.o runtime.o -rdynamic -ldl -pthread -o prog", &status);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "ok\n");
}

// float32 exp, log, erf, tanh and sigmoid (codegen/llvm/vector_math.h) as
// AArch64 code: 65,536 inputs spread over every float, scalar and 4-lane
// NEON results compared with the cross C library in double, rounded.
constexpr int kArmMathInputs = 65536;
constexpr char kMathDriver[] = R"(
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define N 65536
int32_t vector_math(void** args);
static float in[N], out[10][N];
static int64_t ordered(float f) { int32_t b; memcpy(&b, &f, 4); return b < 0 ? (int64_t)INT32_MIN - b : b; }
static double reference(int k, double x) {
  switch (k) {
    case 0: return exp(x);
    case 1: return log(x);
    case 2: return erf(x);
    case 3: return tanh(x);
    default: return 1.0 / (1.0 + exp(-x));
  }
}
int main(void) {
  for (uint32_t i = 0; i < N; ++i) { uint32_t bits = i * 65537u; memcpy(&in[i], &bits, 4); }
  void* args[11] = {in};
  for (int k = 0; k < 10; ++k) args[k + 1] = out[k];
  int32_t rc = vector_math(args);
  if (rc != 0) { printf("kernel returned %d\n", rc); return 2; }
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < N; ++i) {
      float x = in[i], scalar = out[2 * k][i], vector = out[2 * k + 1][i], want = (float)reference(k, x);
      if (memcmp(&scalar, &vector, 4) != 0) { printf("fn %d x %.9g: scalar %.9g vector %.9g\n", k, x, scalar, vector); return 1; }
      if (isnan(want) ? !isnan(vector) : (isnan(vector) || llabs(ordered(vector) - ordered(want)) > 2)) {
        printf("fn %d x %.9g: %.9g, want %.9g\n", k, x, vector, want);
        return 1;
      }
    }
  printf("ok\n");
  return 0;
}
)";

TEST(Aarch64RunTest, VectorMathIsWithinTwoUlpOfLibmUnderQemu) {
  if (!HaveTool("aarch64-linux-gnu-g++") || !HaveTool("qemu-aarch64")) {
    GTEST_SKIP() << "needs g++-aarch64-linux-gnu and qemu-user";
  }
  te::Buffer in = Buf("in", {kArmMathInputs});
  std::vector<te::Buffer> args = {in};
  std::vector<Stmt> body;
  for (te::Intrinsic fn : {te::Intrinsic::kExp, te::Intrinsic::kLog, te::Intrinsic::kErf, te::Intrinsic::kTanh,
                           te::Intrinsic::kSigmoid}) {
    te::Buffer scalar = Buf(std::string("s_") + te::IntrinsicName(fn), {kArmMathInputs});
    te::Buffer vector = Buf(std::string("v_") + te::IntrinsicName(fn), {kArmMathInputs});
    args.push_back(scalar);
    args.push_back(vector);
    body.push_back(Loop("i", kArmMathInputs, [&](Expr i) { return St(scalar, i, te::MakeCall(fn, {Ld(in, i)})); }));
    body.push_back(Loop("v", kArmMathInputs / 4, [&](Expr v) {
      return St(vector, Vec(v * 4, 4), te::MakeCall(fn, {Ld(in, Vec(v * 4, 4))}));
    }));
  }
  absl::StatusOr<Target> arm = Target::Parse("aarch64");
  ASSERT_TRUE(arm.ok()) << arm.status();
  absl::StatusOr<CompiledObject> object = CompileToObject(Func("vector_math", args, Seq(body)), *arm);
  ASSERT_TRUE(object.ok()) << object.status();
  int status = 0;
  std::string output = BuildAndRun(*object, kMathDriver,
                                   "aarch64-linux-gnu-g++ driver.o runtime.o kernel.o -lm -pthread -o prog", &status);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "ok\n");
}

// A shared object for another machine is refused with the reason, not run.
TEST(SharedObjectTest, AnotherMachinesSharedObjectIsRefusedWithTheReason) {
  absl::StatusOr<CompiledObject> shared = LinkSharedObject(ScaledRowsForAarch64());
  ASSERT_TRUE(shared.ok()) << shared.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> loaded = LoadObject(*shared);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(std::string(loaded.status().message()).find("cannot be loaded"), std::string::npos)
      << loaded.status();
}

}  // namespace
}  // namespace tuneforge::codegen::testing
