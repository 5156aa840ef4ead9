// A GPU worker (tuneforge-worker --gpu 0) against a real server on
// 127.0.0.1: it registers as a GPU, and a job for its key is searched with
// the GPU sketches, built to PTX, run, checked and timed on the GPU.
// Skipped where the driver finds no GPU (CI); it ran on an H100/H200
// through bench/gpu/run_gpu_checks.sh.
#include "common/codegen/cuda/cuda_driver.h"
#include "common/codegen/cuda/nvrtc_compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/service/harness.h"

namespace tuneforge::client_test {
namespace {

using service_test::CliResult;
using service_test::Cluster;

TEST(GpuWorkerTest, AGpuWorkerTunesAMatmulWithCheckedOutputs) {
  if (!codegen::CudaCompilerAvailable() || !codegen::cuda::LoadDriver().ok()) GTEST_SKIP() << "no GPU here";
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  // Any key starting cuda-sm gets the GPU search on the server.
  constexpr char kGpuKey[] = "cuda-sm90-e2e";
  absl::StatusOr<int> worker = c.StartWorkerWith({service_test::BinDir() + "/tuneforge-worker"}, {"--gpu", "0"},
                                                 kGpuKey);
  ASSERT_TRUE(worker.ok()) << worker.status();
  CliResult workers = c.RunCliOnServer({"workers"});
  ASSERT_EQ(workers.exit_code, 0) << workers.err;
  EXPECT_EQ(workers.json["workers"][0]["kind"], "gpu");

  CliResult submitted = c.RunCliOnServer({"submit", "matmul:M=512,N=512,K=512", "--trials", "32", "--batch", "16",
                                          "--device-key", kGpuKey, "--min-repeat-ms", "10", "--retime", "-1"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string job = submitted.json["job"].get<std::string>();
  CliResult watched = c.RunCli({"watch", job, "--server", c.address(), "--token-file", c.token_file()},
                               absl::Seconds(240));
  ASSERT_EQ(watched.exit_code, 0) << watched.err << watched.out;
  CliResult status = c.RunCliOnServer({"status", job});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.json["state"], "done");
  EXPECT_EQ(status.json["emulated_device"], false);
  EXPECT_EQ(status.json["trials_done"], 32);
  // A correct GPU kernel: 0.27 GFLOP in well under a millisecond.
  EXPECT_GT(status.json["best_gflops"].get<double>(), 500) << status.out;
}

}  // namespace
}  // namespace tuneforge::client_test
