// tuneforge-worker: a device worker for a tuneforge server (INTERFACE.md).
//
//   tuneforge-worker --server HOST:PORT [--device-key KEY] [--token-file F] [--tls-ca F]
//                    [--runner-only] [--gpu N] [--build-jobs N] [--max-tasks N] [--verbose]
//
// Runs until SIGTERM or SIGINT: then the task being timed finishes, its
// results are reported, the unstarted leased tasks go back to the server,
// and the worker exits 0. Exits non-zero with a one-line error when it
// cannot work at all (no token, a refused token, no runner binary).
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/codegen/cuda/gpu_probe.h"
#include "common/codegen/cuda/nvrtc_compiler.h"
#include "common/rpc/auth.h"
#include "worker/agent/worker_agent.h"

namespace {

using tuneforge::worker::WorkerAgent;
using tuneforge::worker::WorkerOptions;

int Fail(const std::string& message) {
  std::cerr << "tuneforge-worker: error: " << message << std::endl;
  return 1;
}

// Blocks SIGTERM and SIGINT in every thread (call before any thread starts)
// and returns the set, for a thread to sigwait on.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// The target of a worker for GPU `index` (one worker per GPU), or why it
// cannot be one here. Its runners see that GPU alone (CUDA_VISIBLE_DEVICES),
// as their GPU 0.
absl::StatusOr<tuneforge::codegen::Target> GpuWorkerTarget(int index) {
  if (!tuneforge::codegen::CudaCompilerAvailable())
    return absl::FailedPreconditionError(absl::StrCat(
        "--gpu ", index, ": this build has no GPU support (CMake found no CUDA toolkit); rebuild where "
        "/usr/local/cuda is installed, or start a CPU worker without --gpu"));
  absl::StatusOr<std::vector<tuneforge::codegen::GpuTarget>> gpus = tuneforge::codegen::ProbeGpus();
  if (!gpus.ok())
    return absl::FailedPreconditionError(absl::StrCat("--gpu ", index, ": ", gpus.status().message()));
  if (index >= static_cast<int>(gpus->size()))
    return absl::InvalidArgumentError(absl::StrCat("--gpu ", index, ": this machine has ", gpus->size(),
                                                   " GPU(s), numbered from 0"));
  setenv("CUDA_VISIBLE_DEVICES", std::to_string(index).c_str(), 1);
  tuneforge::codegen::Target target = tuneforge::codegen::Target::Gpu((*gpus)[index]);
  target.is_host = true;  // its programs run on this machine
  return target;
}

}  // namespace

int main(int argc, char** argv) {
  const sigset_t stop_signals = BlockStopSignals();

  CLI::App app{"tuneforge-worker: measures candidate schedules for a tuneforge server"};
  std::string server, token_file;
  WorkerOptions options;
  app.add_option("--server", server, "the server, HOST:PORT")->required();
  app.add_option("--device-key", options.device_key,
                 "device key to register under (default: probed, e.g. x86_64-avx512-2c)");
  app.add_option("--token-file", token_file,
                 "file with the cluster token (default: $TUNEFORGE_TOKEN)");
  app.add_option("--tls-ca", options.connect.tls_ca_file,
                 "CA certificate (PEM) of a server that uses TLS");
  app.add_flag("--runner-only", options.runner_only,
               "never compile: run the objects the server builds for this device");
  int gpu = -1;
  app.add_option("--gpu", gpu, "measure on GPU N of this machine (one worker per GPU)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--build-jobs", options.build_jobs, "parallel compiles (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--build-timeout", options.build_timeout_s,
                 "seconds a candidate's compile may take before it is a compile_error (default 60)")
      ->check([](const std::string& text) -> std::string {
        double v = 0;
        return absl::SimpleAtod(text, &v) && v > 0 ? "" : "must be a positive number of seconds, e.g. 60";
      });
  app.add_option("--max-tasks", options.max_tasks_per_lease, "tasks per lease (1..256)")
      ->check(CLI::Range(1, 256));
  app.add_flag("--verbose", options.verbose, "a line per lease and per report");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(std::string(e.what()) + "; run 'tuneforge-worker --help'");
  }

  if (gpu >= 0 && options.runner_only)
    return Fail(absl::StrCat("--gpu ", gpu, " with --runner-only: a GPU worker compiles its own PTX with NVRTC "
                             "(the server builds only CPU code for runner-only workers); drop --runner-only"));
  if (gpu >= 0) {
    absl::StatusOr<tuneforge::codegen::Target> target = GpuWorkerTarget(gpu);
    if (!target.ok()) return Fail(std::string(target.status().message()));
    options.target = *std::move(target);
  }
  // A runner-only build (a board's bundle) has no compiler: the server
  // builds for it whether or not --runner-only was given.
  if (!tuneforge::codegen::CompilerAvailable()) options.runner_only = true;
  // The bundle's start script runs it under qemu-user with this set.
  if (const char* emulator = std::getenv("TUNEFORGE_EMULATOR"); emulator && *emulator) options.emulated = true;

  absl::StatusOr<std::string> token = tuneforge::rpc::LoadToken(token_file);
  if (!token.ok()) return Fail(std::string(token.status().message()));
  options.connect.address = server;
  options.connect.token = *token;
  options.log = [](const std::string& line) { std::cout << line << std::endl; };

  WorkerAgent agent(options);
  std::atomic<bool> signalled{false};
  std::thread watcher([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    signalled.store(true);
    agent.Stop();
  });
  absl::Status status = agent.Run();
  // Run ended by itself (an error): wake the watcher so it can be joined.
  // SIGTERM stays blocked, so a signal that finds it past sigwait is dropped.
  if (!signalled.load()) pthread_kill(watcher.native_handle(), SIGTERM);
  watcher.join();
  if (!status.ok()) return Fail(std::string(status.message()));
  return 0;
}
