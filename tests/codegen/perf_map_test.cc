// TUNEFORGE_PERF_MAP: the JIT names every function it links in perf's map
// file for the process (/tmp/perf-PID.map), so `perf report` can say which
// stage of a program (the entry point, each outlined parallel task) the
// samples fall in. The session is process-wide and reads the variable when
// it starts, so the check runs in a fresh process (a threadsafe death test
// re-executes this binary for the one test).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

constexpr int64_t kN = 256;

// B = A + 1 in a parallel loop: an entry point and one task function.
LoweredFunc ParallelAddOne() {
  te::Buffer A = Buf("A", {kN}), B = Buf("B", {kN});
  return Func("perf_mapped", {A, B},
              Loop("i", kN, [&](Expr i) { return St(B, i, Ld(A, i) + 1.0f); }, ForKind::kParallel));
}

// In the child: loads and runs the kernel, then exits 0 when the map names
// the entry point and its task with addresses and sizes, 1-4 otherwise.
void LoadAndCheckMap(bool with_variable) {
  if (with_variable) setenv("TUNEFORGE_PERF_MAP", "1", 1);
  else unsetenv("TUNEFORGE_PERF_MAP");
  const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  std::remove(path.c_str());
  absl::StatusOr<CompiledObject> object = CompileToObject(ParallelAddOne(), Target::Host());
  if (!object.ok()) std::exit(2);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = LoadObject(*object);
  if (!kernel.ok()) std::exit(2);
  std::vector<float> a(kN), b(kN);
  std::iota(a.begin(), a.end(), 0.0f);
  void* args[] = {a.data(), b.data()};
  if ((**kernel)(args) != 0 || b[7] != 8.0f) std::exit(3);
  std::ifstream in(path);
  if (!with_variable) std::exit(in ? 4 : 0);
  bool entry = false, task = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string start, size, name;
    fields >> std::hex >> start >> size >> name;
    if (std::strtoull(start.c_str(), nullptr, 16) == 0 || std::strtoull(size.c_str(), nullptr, 16) == 0) continue;
    entry |= name == "perf_mapped";
    task |= name.rfind("perf_mapped.task", 0) == 0;
  }
  std::remove(path.c_str());
  std::exit(entry && task ? 0 : 1);
}

TEST(PerfMapTest, WithTheVariableTheJitNamesTheKernelAndItsTasksForPerf) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(LoadAndCheckMap(true), ::testing::ExitedWithCode(0), "");
}

TEST(PerfMapTest, WithoutItNoMapIsWritten) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(LoadAndCheckMap(false), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace tuneforge::codegen::testing
