// Runs AArch64 code for real: the object is linked with the runtime
// (cross-compiled) and a small driver, and run under qemu-aarch64. Skipped
// where the cross toolchain or qemu-user is not installed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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

TEST(Aarch64RunTest, ParallelVectorKernelRunsUnderQemu) {
  if (!HaveTool("aarch64-linux-gnu-g++") || !HaveTool("qemu-aarch64")) {
    GTEST_SKIP() << "needs g++-aarch64-linux-gnu and qemu-user";
  }
  // b[r, c] = a[r, c]^2 + r over 64 x 33: parallel rows, 8-lane vectors
  // (two NEON registers) for 32 columns and a scalar tail column.
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
  ASSERT_TRUE(arm.ok()) << arm.status();
  absl::StatusOr<CompiledObject> object = CompileToObject(f, *arm);
  ASSERT_TRUE(object.ok()) << object.status();

  fs::path dir = fs::temp_directory_path() / ("tf_aarch64_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "kernel.o", std::ios::binary) << object->object;
  std::ofstream(dir / "driver.c") << kDriver;
  fs::path runtime = fs::path(TF_TEST_DATA_DIR) / ".." / ".." / "common" / "runtime" / "parallel.cc";
  std::string root = (fs::path(TF_TEST_DATA_DIR) / ".." / "..").string();
  std::string d = dir.string();
  std::string build = "cd " + d + " && aarch64-linux-gnu-gcc -O1 -c driver.c -o driver.o" +
                      " && aarch64-linux-gnu-g++ -std=c++20 -O1 -I" + root + " -c " +
                      runtime.string() + " -o runtime.o" +
                      " && aarch64-linux-gnu-g++ driver.o runtime.o kernel.o -pthread -o prog" +
                      " >build.log 2>&1";
  ASSERT_EQ(std::system(build.c_str()), 0) << build;
  std::string run = "cd " + d + " && TUNEFORGE_NUM_THREADS=4 qemu-aarch64 -L /usr/aarch64-linux-gnu" +
                    " ./prog >run.log 2>&1";
  int status = std::system(run.c_str());
  std::ifstream log(dir / "run.log");
  std::string output((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "ok\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuneforge::codegen::testing
