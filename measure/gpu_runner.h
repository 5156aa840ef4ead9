// The runner's GPU path: a GPU program (PTX and its launches, built by
// codegen::CompileForGpu) loaded with the driver API, run over device copies
// of the workload's buffers and timed with CUDA events. The runner process
// holds one GpuRunner for GPU 0 of what it sees (a worker started with
// --gpu N shows it GPU N alone, through CUDA_VISIBLE_DEVICES).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
#include "common/codegen/cuda/cuda_driver.h"
#include "measure/measure_types.h"
#include "measure/timing.h"
#include "measure/workload_buffers.h"

namespace tuneforge::measure {

// A loaded GPU program: its kernels in launch order and its temporaries.
class GpuProgram {
 public:
  GpuProgram(const codegen::cuda::DriverApi* api, codegen::cuda::CUmodule module) : api_(api), module_(module) {}
  ~GpuProgram();
  GpuProgram(const GpuProgram&) = delete;
  GpuProgram& operator=(const GpuProgram&) = delete;

 private:
  friend class GpuRunner;
  const codegen::cuda::DriverApi* api_;
  codegen::cuda::CUmodule module_;
  std::vector<codegen::cuda::CUfunction> functions_;
  std::vector<codegen::CudaKernel> kernels_;
  std::vector<codegen::cuda::CUdeviceptr> temporaries_;
};

class GpuRunner {
 public:
  // The driver and GPU 0's primary context. Errors say why this machine
  // cannot run GPU programs.
  static absl::StatusOr<std::unique_ptr<GpuRunner>> Open();
  ~GpuRunner();

  // Device buffers for `w`'s arguments, its inputs uploaded (again on every
  // call, so a kernel that wrote into an input cannot change the next
  // candidate's). ResourceExhausted when they do not fit on the GPU.
  absl::Status Bind(const WorkloadBuffers& w);
  // PTX -> module (the driver's JIT error log in the error), functions,
  // temporaries allocated.
  absl::StatusOr<std::unique_ptr<GpuProgram>> Load(const codegen::CompiledObject& object);
  // One run of every kernel, outputs first filled with NaN bytes, then
  // copied into `outputs` (the bound workload's output shapes). Returns the
  // run's seconds on the GPU.
  absl::StatusOr<double> RunAndFetch(const GpuProgram& program, std::vector<te::NDArray>& outputs);
  // calibration and repeats as TimeKernel does, each repeat between two
  // events.
  absl::StatusOr<TimingResult> Time(const GpuProgram& program, const TimingOptions& options);

  // A kernel fault (illegal address, trap) leaves the context unusable:
  // the runner must exit after reporting it, and its parent starts another.
  bool broken() const { return broken_; }

 private:
  explicit GpuRunner(const codegen::cuda::DriverApi* api) : api_(api) {}
  absl::Status Check(codegen::cuda::CUresult r, const std::string& what);
  absl::Status Launch(const GpuProgram& program);
  absl::StatusOr<double> TimeRuns(const GpuProgram& program, int number);
  void FreeArgs();

  const codegen::cuda::DriverApi* api_;
  codegen::cuda::CUcontext context_ = nullptr;
  codegen::cuda::CUevent start_ = nullptr;
  codegen::cuda::CUevent stop_ = nullptr;
  std::string bound_key_;
  std::vector<codegen::cuda::CUdeviceptr> args_;
  std::vector<int64_t> arg_bytes_;
  size_t num_inputs_ = 0;
  bool broken_ = false;
};

}  // namespace tuneforge::measure
