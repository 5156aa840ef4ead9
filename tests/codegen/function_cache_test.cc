// Kernels compiled function by function: the entry point and each parallel
// task optimized and compiled apart, merged into one object, and a builder's
// FunctionObjectCache handing back the functions it compiled before.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "common/codegen/function_object_cache.h"
#include "common/codegen/object_info.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/Support/CommandLine.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using ::testing::Contains;

constexpr int64_t kN = 256;

// B = A * 2 then C = B + `add`, each loop parallel: an entry point and two
// task functions. `loop` names the loop variables (names reach no object).
LoweredFunc TwoStages(float add, const std::string& loop = "i") {
  te::Buffer A = Buf("A", {kN}), B = Buf("B", {kN}), C = Buf("C", {kN});
  return Func("two_stages", {A, B, C},
              Seq({Loop(loop, kN, [&](Expr i) { return St(B, i, Ld(A, i) * 2.0f); }, ForKind::kParallel),
                   Loop(loop + ".b", kN, [&](Expr i) { return St(C, i, Ld(B, i) + add); }, ForKind::kParallel)}));
}

// Loads the object and checks C = A * 2 + add.
void ExpectRuns(const CompiledObject& object, float add) {
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = LoadObject(object);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<float> a(kN), b(kN), c(kN);
  std::iota(a.begin(), a.end(), 0.0f);
  void* args[] = {a.data(), b.data(), c.data()};
  ASSERT_EQ((**kernel)(args), 0);
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(c[i], a[i] * 2 + add) << "at " << i;
}

TEST(FunctionCacheTest, AKernelsFunctionsAreCompiledApartIntoOneObject) {
  absl::StatusOr<CompiledObject> object = CompileToObject(TwoStages(1.0f), Target::Host());
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->functions(), 3);  // entry point, two parallel tasks
  EXPECT_EQ(object->reused_functions(), 0);
  absl::StatusOr<ObjectInfo> info = InspectObject(object->object);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->is_relocatable);
  EXPECT_THAT(info->defined_functions, Contains("two_stages"));
  ExpectRuns(*object, 1.0f);
}

TEST(FunctionCacheTest, TheSameKernelAgainReusesEveryFunction) {
  FunctionObjectCache cache;
  absl::StatusOr<CompiledObject> first = CompileToObject(TwoStages(1.0f, "i"), Target::Host(), {.function_cache = &cache});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->reused_functions(), 0);
  EXPECT_EQ(cache.entries(), 3u);
  // Other loop names, the same code.
  absl::StatusOr<CompiledObject> again = CompileToObject(TwoStages(1.0f, "j"), Target::Host(), {.function_cache = &cache});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->functions(), 3);
  EXPECT_EQ(again->reused_functions(), 3);
  EXPECT_EQ(again->optimize_ms, 0);  // nothing left to optimize
  EXPECT_EQ(cache.hits(), 3);
  ExpectRuns(*again, 1.0f);
}

TEST(FunctionCacheTest, AKernelThatChangesOneStageCompilesOnlyThatStage) {
  FunctionObjectCache cache;
  ASSERT_TRUE(CompileToObject(TwoStages(1.0f), Target::Host(), {.function_cache = &cache}).ok());
  absl::StatusOr<CompiledObject> changed = CompileToObject(TwoStages(5.0f), Target::Host(), {.function_cache = &cache});
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed->functions(), 3);
  EXPECT_EQ(changed->reused_functions(), 2);  // the entry point and the first stage
  // The new stage's code, not the cached one's.
  ExpectRuns(*changed, 5.0f);
}

// What --compile-split reads: each function's name, whether it was reused,
// its IR size and its own optimize and machine-code time.
TEST(FunctionCacheTest, EachFunctionsBuildIsReportedByName) {
  FunctionObjectCache cache;
  ASSERT_TRUE(CompileToObject(TwoStages(1.0f), Target::Host(), {.function_cache = &cache}).ok());
  absl::StatusOr<CompiledObject> changed = CompileToObject(TwoStages(5.0f), Target::Host(), {.function_cache = &cache});
  ASSERT_TRUE(changed.ok()) << changed.status();
  ASSERT_EQ(changed->function_builds.size(), 3u);
  std::vector<std::string> names;
  double optimize_ms = 0, machine_code_ms = 0;
  for (const FunctionBuild& f : changed->function_builds) {
    names.push_back(f.name);
    EXPECT_GT(f.instructions_before, 0) << f.name;
    if (f.reused) {
      EXPECT_EQ(f.instructions_after, 0) << f.name;
      EXPECT_EQ(f.optimize_ms + f.machine_code_ms, 0) << f.name;
    } else {
      EXPECT_GT(f.instructions_after, 0) << f.name;
      EXPECT_GT(f.optimize_ms, 0) << f.name;
      EXPECT_GT(f.machine_code_ms, 0) << f.name;
    }
    optimize_ms += f.optimize_ms;
    machine_code_ms += f.machine_code_ms;
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("two_stages", "two_stages.task0", "two_stages.task1"));
  // Only the changed second stage was built.
  EXPECT_EQ(std::count_if(changed->function_builds.begin(), changed->function_builds.end(),
                          [](const FunctionBuild& f) { return !f.reused; }),
            1);
  EXPECT_DOUBLE_EQ(optimize_ms, changed->optimize_ms);
  EXPECT_LE(machine_code_ms, changed->machine_code_ms);  // which also holds the merge
}

TEST(FunctionCacheTest, AnotherLevelOrTargetCompilesAfresh) {
  FunctionObjectCache cache;
  ASSERT_TRUE(CompileToObject(TwoStages(1.0f), Target::Host(), {.opt_level = 3, .function_cache = &cache}).ok());
  absl::StatusOr<CompiledObject> o2 =
      CompileToObject(TwoStages(1.0f), Target::Host(), {.opt_level = 2, .function_cache = &cache});
  ASSERT_TRUE(o2.ok()) << o2.status();
  EXPECT_EQ(o2->reused_functions(), 0);
  ExpectRuns(*o2, 1.0f);
  absl::StatusOr<Target> arm = Target::Parse("aarch64");
  ASSERT_TRUE(arm.ok()) << arm.status();
  absl::StatusOr<CompiledObject> on_arm = CompileToObject(TwoStages(1.0f), *arm, {.function_cache = &cache});
  ASSERT_TRUE(on_arm.ok()) << on_arm.status();
  EXPECT_EQ(on_arm->reused_functions(), 0);
  absl::StatusOr<ObjectInfo> info = InspectObject(on_arm->object);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->elf_machine, 183);  // EM_AARCH64: the parts merged for their own machine
  EXPECT_THAT(info->defined_functions, Contains("two_stages"));
}

TEST(FunctionCacheTest, TheCacheDropsItsOldestEntriesPastItsBound) {
  FunctionObjectCache cache(/*max_bytes=*/1000);
  cache.Add("a", std::string(400, 'a'));
  cache.Add("b", std::string(400, 'b'));
  cache.Add("c", std::string(400, 'c'));  // "a" goes
  EXPECT_LE(cache.bytes(), 1000u);
  EXPECT_FALSE(cache.Find("a").has_value());
  EXPECT_EQ(cache.Find("b"), std::string(400, 'b'));
  EXPECT_EQ(cache.Find("c"), std::string(400, 'c'));
  cache.Add("huge", std::string(2000, 'h'));  // larger than the bound: not kept, nothing dropped
  EXPECT_FALSE(cache.Find("huge").has_value());
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.hits(), 2);
  EXPECT_EQ(cache.misses(), 2);
}

// Two builders of one pool, each with its own cache, sharing a folder: what
// one compiled the other loads, and each deletes its own oldest files past
// its bound.
TEST(FunctionCacheTest, BuildersSharingAFolderReuseEachOthersFunctions) {
  std::string dir = (std::filesystem::temp_directory_path() / "tuneforge-shared-cache-test-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  FunctionObjectCache first_builder, second_builder;
  first_builder.ShareThrough(dir);
  second_builder.ShareThrough(dir);
  absl::StatusOr<CompiledObject> first =
      CompileToObject(TwoStages(1.0f), Target::Host(), {.function_cache = &first_builder});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->reused_functions(), 0);
  absl::StatusOr<CompiledObject> second =
      CompileToObject(TwoStages(1.0f), Target::Host(), {.function_cache = &second_builder});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->reused_functions(), 3);
  EXPECT_EQ(second_builder.hits(), 3);
  ExpectRuns(*second, 1.0f);

  FunctionObjectCache bounded(/*max_bytes=*/1000);
  bounded.ShareThrough(dir);
  bounded.Add("x", std::string(600, 'x'));
  bounded.Add("y", std::string(600, 'y'));  // its own "x" file goes
  FunctionObjectCache reader;
  reader.ShareThrough(dir);
  EXPECT_FALSE(reader.Find("x").has_value());
  EXPECT_EQ(reader.Find("y"), std::string(600, 'y'));
  std::filesystem::remove_all(dir);
}

// LLD's driver resets LLVM's options to their defaults before it parses its
// own: the code generator's options must be what InitializeLlvmTargets set,
// however many in-process links (merges, shared objects) ran before.
TEST(FunctionCacheTest, LinksKeepTheCodeGeneratorsOptions) {
  absl::StatusOr<CompiledObject> object = CompileToObject(TwoStages(1.0f), Target::Host());  // merges with LLD
  ASSERT_TRUE(object.ok()) << object.status();
  ASSERT_TRUE(LinkSharedObject(*object).ok());
  for (const auto& [name, value] : {std::pair<const char*, unsigned>{"dag-maps-huge-region", 200u},
                                    {"combiner-tokenfactor-inline-limit", 16u}}) {
    llvm::cl::Option* option = llvm::cl::getRegisteredOptions().lookup(name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_EQ(static_cast<llvm::cl::opt<unsigned>*>(option)->getValue(), value) << name;
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
