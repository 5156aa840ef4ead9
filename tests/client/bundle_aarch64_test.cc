// The aarch64 board bundle as a user deploys it to an ARM board: the
// runner-only worker and runner cross-built into build/aarch64
// (cmake/CrossAarch64.cmake), packed by deploy/bundle.sh --arch aarch64 and
// started with its run-worker under qemu-aarch64 against a real server on
// 127.0.0.1, which builds and links every kernel for the board. It
// registers with the aarch64 key it probes; its jobs complete with checked
// outputs beside an x86 worker's; a kernel that crashes on it costs one
// candidate.
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/bundle_script.h"
#include "tests/service/harness.h"
#include "tests/service/runner_processes.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using service_test::CliResult;
using service_test::Cluster;
using service_test::kProbedDeviceKey;
using service_test::kTestDeviceKey;

constexpr char kEmulator[] = "/usr/bin/qemu-aarch64";

// The ELF machine of a binary (183: AArch64), or -1.
int ElfMachine(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[20] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header) || header[1] != 'E') return -1;
  return header[18] | (header[19] << 8);
}

class Aarch64BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (HostArch() != "x86_64") GTEST_SKIP() << "the aarch64 bundle is cross-built on x86_64";
#ifndef TF_AARCH64_BUNDLE_BUILT
    GTEST_SKIP() << "the aarch64 bundle was not cross-built here (deploy/setup.sh installs what it needs)";
#endif
    ASSERT_TRUE(std::filesystem::exists(kEmulator)) << "Debian's qemu-user is missing: run deploy/setup.sh";
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    bundle_ = cluster_->dir() + "/bundle-aarch64";
    const std::string log = cluster_->dir() + "/bundle.log";
    ASSERT_EQ(Bundle("aarch64", bundle_, log), 0) << ReadAll(log);
  }

  // Starts the bundle's worker under qemu-aarch64 with the key it probes;
  // returns that key as the server lists it.
  std::string StartArmWorker() {
    absl::StatusOr<int> worker = c().StartWorkerWith(
        {"/usr/bin/env", absl::StrCat("TUNEFORGE_EMULATOR=", kEmulator), bundle_ + "/run-worker"}, {},
        kProbedDeviceKey);
    EXPECT_TRUE(worker.ok()) << worker.status();
    if (!worker.ok()) return "";
    arm_worker_ = *worker;
    CliResult workers = c().RunCliOnServer({"workers"});
    EXPECT_EQ(workers.exit_code, 0) << workers.err;
    for (const auto& w : workers.json["workers"])
      if (w["id"] == c().worker(arm_worker_).id) {
        EXPECT_EQ(w["kind"], "emulated");
        EXPECT_EQ(w["can_build"], false);  // the server builds and links its kernels
        return w["device_key"].get<std::string>();
      }
    ADD_FAILURE() << "the ARM worker is not listed: " << workers.out;
    return "";
  }

  Cluster& c() { return *cluster_; }
  std::string bundle_;
  int arm_worker_ = -1;
  std::unique_ptr<Cluster> cluster_;
};

TEST_F(Aarch64BundleTest, TheBundleHoldsAArm64WorkerWithItsLibrariesAndNoCompiler) {
  for (const char* b : {"bin/tuneforge-worker", "bin/tuneforge-runner"})
    EXPECT_EQ(ElfMachine(bundle_ + "/" + b), 183) << b << " is not an AArch64 binary";
  EXPECT_TRUE(std::filesystem::exists(bundle_ + "/lib/ld-linux-aarch64.so.1"));
  EXPECT_EQ(ElfMachine(bundle_ + "/lib/libgrpc++.so.1.51"), 183);
  for (const auto& lib : std::filesystem::directory_iterator(bundle_ + "/lib"))
    EXPECT_THAT(lib.path().filename().string(),
                ::testing::Not(::testing::AnyOf(HasSubstr("LLVM"), HasSubstr("lld"), HasSubstr("nvrtc"))));
}

// One server, an x86 worker and the emulated ARM board, a job on each key
// at once: both complete with correct kernels, each on its own worker.
TEST_F(Aarch64BundleTest, AnX86AndAnArmWorkerRunTwoJobsAtOnce) {
  ASSERT_TRUE(c().StartWorker().ok());
  const std::string arm_key = StartArmWorker();
  ASSERT_THAT(arm_key, StartsWith("aarch64-"));
  std::vector<std::string> jobs;
  for (const std::string& key : {std::string(kTestDeviceKey), arm_key}) {
    CliResult submitted = c().RunCliOnServer({"submit", "matmul:M=16,N=16,K=16", "--trials", "4", "--batch", "4",
                                              "--device-key", key, "--retime", "-1"});
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
    jobs.push_back(submitted.json["job"].get<std::string>());
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    CliResult watched = c().RunCli({"watch", jobs[i], "--server", c().address(), "--token-file", c().token_file()},
                                   absl::Seconds(300));
    ASSERT_EQ(watched.exit_code, 0) << watched.err << watched.out;
    CliResult status = c().RunCliOnServer({"status", jobs[i]});
    ASSERT_EQ(status.exit_code, 0) << status.err;
    EXPECT_EQ(status.json["state"], "done");
    EXPECT_EQ(status.json["device_key"], i == 0 ? kTestDeviceKey : arm_key);
    EXPECT_EQ(status.json["emulated_device"], i == 1);
    EXPECT_EQ(status.json["trials_done"], 4);
    EXPECT_GT(status.json["best_gflops"].get<double>(), 0) << status.out;
  }
  // Every ARM kernel's output matched the reference, on the ARM worker.
  absl::StatusOr<std::vector<v1::Record>> records = c().JobRecords(jobs[1]);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 4u);
  for (const v1::Record& r : *records) {
    EXPECT_EQ(r.error_kind(), "none") << r.error();
    EXPECT_EQ(r.worker_id(), c().worker(arm_worker_).id);
  }
}

// A kernel that crashes on the board (its runner gets SIGSEGV while it
// times a candidate) costs that candidate one runtime_crash record; the
// board's worker measures the rest.
TEST_F(Aarch64BundleTest, AKernelThatCrashesOnTheBoardCostsOneCandidate) {
  const std::string arm_key = StartArmWorker();
  ASSERT_THAT(arm_key, StartsWith("aarch64-"));
  v1::JobSpec spec = service_test::SmallJob("matmul:M=64,N=64,K=64", 3, 3);
  spec.set_device_key(arm_key);
  spec.mutable_measure()->set_min_repeat_ms(1500);  // long enough to catch a runner at work
  spec.mutable_measure()->set_timeout_s(60);        // emulation is slow
  absl::StatusOr<v1::Job> job = c().Submit(spec);
  ASSERT_TRUE(job.ok()) << job.status();

  ASSERT_TRUE(service_test::SegfaultABusyRunner(c().worker(arm_worker_).process->pid(), absl::Seconds(120),
                                                      service_test::KernelSign::kBusyWithSharedObject))
      << "no busy runner was found under the ARM worker";

  absl::StatusOr<v1::Job> done = c().WaitForJobEnd(job->id(), absl::Seconds(240));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  absl::StatusOr<std::vector<v1::Record>> records = c().JobRecords(job->id());
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  int crashes = 0, correct = 0;
  std::string kinds;
  for (const v1::Record& r : *records) {
    kinds += r.error_kind() + " (" + r.error() + "); ";
    crashes += r.error_kind() == "runtime_crash";
    correct += r.error_kind() == "none";
  }
  EXPECT_EQ(crashes, 1) << kinds;
  EXPECT_EQ(correct, 2) << kinds;
  EXPECT_TRUE(c().worker(arm_worker_).process->Running());
}

}  // namespace
}  // namespace tuneforge::client_test
