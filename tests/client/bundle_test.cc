// The worker bundle (deploy/bundle.sh) as a user deploys it: the runner-only
// build (no compiler) packed into a folder, started with its run-worker
// against a real server on 127.0.0.1 that builds shared objects for it,
// here under qemu-user's emulation of this machine (what a board's bundle
// gets in the tests): it registers as emulated, a job for its key runs to
// completion with checked outputs, and the job says its timings mean nothing.
#include <filesystem>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/bundle_script.h"
#include "tests/service/harness.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;
using service_test::CliResult;
using service_test::Cluster;
using service_test::kTestDeviceKey;

// A real server and this checkout's bundle in its folder; skipped where
// Debian's qemu-user is missing.
class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    emulator_ = "/usr/bin/qemu-" + HostArch();
    if (!std::filesystem::exists(emulator_)) GTEST_SKIP() << emulator_ << " is not installed (Debian's qemu-user)";
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    bundle_ = cluster_->dir() + "/bundle";
    const std::string log = cluster_->dir() + "/bundle.log";
    ASSERT_EQ(Bundle(HostArch(), bundle_, log), 0) << ReadAll(log);
  }
  Cluster& c() { return *cluster_; }
  // The bundle's run-worker under the emulator.
  std::vector<std::string> EmulatedWorker() const {
    return {"/usr/bin/env", "TUNEFORGE_EMULATOR=" + emulator_, bundle_ + "/run-worker"};
  }

  std::string emulator_, bundle_;
  std::unique_ptr<Cluster> cluster_;
};

TEST_F(BundleTest, AnEmulatedBundledWorkerRunsAJobToCompletion) {
  for (const char* f : {"run-worker", "bin/tuneforge-worker", "bin/tuneforge-runner", "launch/tuneforge-runner"})
    EXPECT_TRUE(std::filesystem::exists(bundle_ + "/" + f)) << f;
  // Nothing to compile with on the board: no LLVM, linker or NVRTC.
  for (const auto& lib : std::filesystem::directory_iterator(bundle_ + "/lib"))
    EXPECT_THAT(lib.path().filename().string(),
                ::testing::Not(::testing::AnyOf(HasSubstr("LLVM"), HasSubstr("lld"), HasSubstr("nvrtc"))));
  Cluster& c = this->c();

  absl::StatusOr<int> worker = c.StartWorkerWith(EmulatedWorker());
  ASSERT_TRUE(worker.ok()) << worker.status();
  CliResult workers = c.RunCliOnServer({"workers"});
  ASSERT_EQ(workers.exit_code, 0) << workers.err;
  EXPECT_EQ(workers.json["workers"][0]["kind"], "emulated");
  EXPECT_EQ(workers.json["workers"][0]["can_build"], false);  // the server builds its shared objects

  CliResult submitted = c.RunCliOnServer({"submit", "matmul:M=16,N=16,K=16", "--trials", "4", "--batch", "4",
                                          "--device-key", kTestDeviceKey, "--retime", "-1"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string job = submitted.json["job"].get<std::string>();
  CliResult watched = c.RunCli({"watch", job, "--server", c.address(), "--token-file", c.token_file()},
                               absl::Seconds(240));
  ASSERT_EQ(watched.exit_code, 0) << watched.err << watched.out;
  EXPECT_THAT(watched.out + watched.err, HasSubstr("emulated device (timings mean nothing)"));
  CliResult status = c.RunCliOnServer({"status", job});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.json["state"], "done");
  EXPECT_EQ(status.json["emulated_device"], true);
  EXPECT_EQ(status.json["trials_done"], 4);
  EXPECT_GT(status.json["best_gflops"].get<double>(), 0) << status.out;  // a correct kernel was found
}

// One server, two kinds of worker on two keys, a job on each at once:
// each job runs on its key's worker and says whether it is emulated.
TEST_F(BundleTest, ANativeAndAnEmulatedWorkerRunTwoJobsAtOnce) {
  Cluster& c = this->c();
  ASSERT_TRUE(c.StartWorker().ok());
  constexpr char kEmulatedKey[] = "e2e-emulated";
  ASSERT_TRUE(c.StartWorkerWith(EmulatedWorker(), {}, kEmulatedKey).ok());
  std::vector<std::string> jobs;
  for (const char* key : {kTestDeviceKey, kEmulatedKey}) {
    CliResult submitted = c.RunCliOnServer({"submit", "matmul:M=16,N=16,K=16", "--trials", "4", "--batch", "4",
                                            "--device-key", key, "--retime", "-1"});
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
    jobs.push_back(submitted.json["job"].get<std::string>());
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    CliResult watched = c.RunCli({"watch", jobs[i], "--server", c.address(), "--token-file", c.token_file()},
                                 absl::Seconds(240));
    ASSERT_EQ(watched.exit_code, 0) << watched.err << watched.out;
    CliResult status = c.RunCliOnServer({"status", jobs[i]});
    ASSERT_EQ(status.exit_code, 0) << status.err;
    EXPECT_EQ(status.json["state"], "done");
    EXPECT_EQ(status.json["device_key"], i == 0 ? kTestDeviceKey : kEmulatedKey);
    EXPECT_EQ(status.json["emulated_device"], i == 1);
    EXPECT_GT(status.json["best_gflops"].get<double>(), 0) << status.out;
  }
  CliResult workers = c.RunCliOnServer({"workers"});
  ASSERT_EQ(workers.exit_code, 0) << workers.err;
  std::multiset<std::string> kinds;
  for (const auto& w : workers.json["workers"]) kinds.insert(w["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::multiset<std::string>{"cpu", "emulated"}));
}

TEST(BundleScriptTest, AMissingBuildOrBadArgumentsAreOneLineErrors) {
  const std::string dir = std::filesystem::temp_directory_path() / "tf-bundle-args";
  // A build folder without the (cross-)built worker: says how to make it.
  const std::string empty_build = dir + "-empty-build";
  std::filesystem::create_directories(empty_build);
  EXPECT_EQ(Bundle(HostArch(), dir, dir + ".log", empty_build), 1);
  EXPECT_THAT(ReadAll(dir + ".log"), HasSubstr("run deploy/setup.sh first"));
  if (HostArch() == "x86_64") {
    EXPECT_EQ(Bundle("aarch64", dir, dir + ".log", empty_build), 1);
    EXPECT_THAT(ReadAll(dir + ".log"), HasSubstr("cross-built on x86_64 by deploy/setup.sh"));
  } else {
    EXPECT_EQ(Bundle("x86_64", dir, dir + ".log"), 2);
    EXPECT_THAT(ReadAll(dir + ".log"), HasSubstr("only the aarch64 bundle is cross-built"));
  }
  std::filesystem::remove_all(empty_build);
  EXPECT_EQ(Bundle("riscv64", dir, dir + ".log"), 2);
  EXPECT_THAT(ReadAll(dir + ".log"), HasSubstr("--arch must be x86_64 or aarch64"));
  std::filesystem::remove(dir + ".log");
}

}  // namespace
}  // namespace tuneforge::client_test
