#include "measure/gpu_runner.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace tuneforge::measure {
namespace {

using codegen::cuda::CUdeviceptr;
using codegen::cuda::CUresult;
using codegen::cuda::kCudaSuccess;

constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kLaunchOutOfResources = 701;

// Errors after which the context is unusable: every later call fails too.
bool IsSticky(CUresult r) {
  return r == 700 || r == 702 || r == 710 || (r >= 714 && r <= 719) || r == 999;
}

// Launch shapes fit in the driver's unsigned ints (the launch limits were
// checked when the program was built).
unsigned Dim(int64_t d) { return static_cast<unsigned>(std::clamp<int64_t>(d, 1, INT32_MAX)); }

constexpr int kMaxRunsPerRepeat = 1 << 20;

}  // namespace

GpuProgram::~GpuProgram() {
  for (CUdeviceptr p : temporaries_) api_->cuMemFree(p);
  if (module_) api_->cuModuleUnload(module_);
}

absl::StatusOr<std::unique_ptr<GpuRunner>> GpuRunner::Open() {
  absl::StatusOr<const codegen::cuda::DriverApi*> api = codegen::cuda::LoadDriver();
  if (!api.ok()) return api.status();
  std::unique_ptr<GpuRunner> runner(new GpuRunner(*api));
  int count = 0;
  if (absl::Status s = runner->Check((*api)->cuDeviceGetCount(&count), "counting GPUs"); !s.ok()) return s;
  if (count == 0) return absl::FailedPreconditionError("the NVIDIA driver found no GPU for this runner");
  codegen::cuda::CUdevice device = 0;
  if (absl::Status s = runner->Check((*api)->cuDeviceGet(&device, 0), "opening GPU 0"); !s.ok()) return s;
  if (absl::Status s = runner->Check((*api)->cuDevicePrimaryCtxRetain(&runner->context_, device), "creating a context");
      !s.ok())
    return s;
  if (absl::Status s = runner->Check((*api)->cuCtxSetCurrent(runner->context_), "using the context"); !s.ok())
    return s;
  if (absl::Status s = runner->Check((*api)->cuEventCreate(&runner->start_, 0), "creating an event"); !s.ok())
    return s;
  if (absl::Status s = runner->Check((*api)->cuEventCreate(&runner->stop_, 0), "creating an event"); !s.ok())
    return s;
  return runner;
}

GpuRunner::~GpuRunner() {
  if (broken_) return;  // the context is gone; the process is about to exit
  FreeArgs();
  if (start_) api_->cuEventDestroy(start_);
  if (stop_) api_->cuEventDestroy(stop_);
}

absl::Status GpuRunner::Check(CUresult r, const std::string& what) {
  if (r == kCudaSuccess) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": ", api_->ErrorText(r));
  if (IsSticky(r)) {
    broken_ = true;
    return absl::AbortedError(message);
  }
  if (r == kOutOfMemory) return absl::ResourceExhaustedError(message);
  if (r == kLaunchOutOfResources)
    return absl::InvalidArgumentError(
        absl::StrCat(message, " (the kernel needs more registers per block than the GPU has: fewer threads)"));
  return absl::InternalError(message);
}

void GpuRunner::FreeArgs() {
  for (CUdeviceptr p : args_) api_->cuMemFree(p);
  args_.clear();
  arg_bytes_.clear();
  bound_key_.clear();
}

absl::Status GpuRunner::Bind(const WorkloadBuffers& w) {
  if (bound_key_ != w.key) {
    FreeArgs();
    std::vector<const te::NDArray*> arrays;
    for (const te::NDArray& a : w.inputs) arrays.push_back(&a);
    for (const te::NDArray& a : w.outputs) arrays.push_back(&a);
    for (const te::NDArray* a : arrays) {
      CUdeviceptr p = 0;
      const int64_t bytes = std::max<int64_t>(a->nbytes(), 1);
      if (absl::Status s = Check(api_->cuMemAlloc(&p, static_cast<size_t>(bytes)),
                                 absl::StrCat("allocating ", bytes, " bytes on the GPU"));
          !s.ok()) {
        FreeArgs();
        return s;
      }
      args_.push_back(p);
      arg_bytes_.push_back(a->nbytes());
    }
    num_inputs_ = w.inputs.size();
    bound_key_ = w.key;
  }
  for (size_t i = 0; i < w.inputs.size(); ++i)
    if (absl::Status s = Check(api_->cuMemcpyHtoD(args_[i], w.inputs[i].data(), static_cast<size_t>(arg_bytes_[i])),
                               absl::StrCat("copying input '", w.specs[i].name, "' to the GPU"));
        !s.ok())
      return s;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<GpuProgram>> GpuRunner::Load(const codegen::CompiledObject& object) {
  if (!object.is_gpu()) return absl::InvalidArgumentError("not a GPU program (no kernels)");
  std::string log(8192, '\0');
  int options[] = {codegen::cuda::kJitErrorLogBuffer, codegen::cuda::kJitErrorLogBufferSizeBytes};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size()))};
  codegen::cuda::CUmodule module = nullptr;
  const std::string ptx = object.object;  // the driver wants it NUL-terminated
  if (CUresult r = api_->cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values); r != kCudaSuccess) {
    log.resize(log.find('\0'));
    absl::Status s = Check(r, "loading the PTX");
    return absl::Status(s.code(), absl::StrCat(s.message(), log.empty() ? "" : ": ", log));
  }
  auto program = std::make_unique<GpuProgram>(api_, module);
  program->kernels_ = object.cuda_kernels;
  for (const codegen::CudaKernel& k : object.cuda_kernels) {
    codegen::cuda::CUfunction f = nullptr;
    if (absl::Status s = Check(api_->cuModuleGetFunction(&f, module, k.name.c_str()),
                               absl::StrCat("finding kernel '", k.name, "' in the PTX"));
        !s.ok())
      return s;
    program->functions_.push_back(f);
  }
  for (const codegen::CudaTemporary& t : object.cuda_temporaries) {
    CUdeviceptr p = 0;
    if (absl::Status s = Check(api_->cuMemAlloc(&p, static_cast<size_t>(std::max<int64_t>(t.bytes(), 1))),
                               absl::StrCat("allocating temporary '", t.name, "' (", t.bytes(), " bytes)"));
        !s.ok())
      return s;
    program->temporaries_.push_back(p);
  }
  return program;
}

absl::Status GpuRunner::Launch(const GpuProgram& program) {
  // Every kernel takes the arguments, then the temporaries.
  std::vector<CUdeviceptr> pointers = args_;
  pointers.insert(pointers.end(), program.temporaries_.begin(), program.temporaries_.end());
  std::vector<void*> params;
  for (CUdeviceptr& p : pointers) params.push_back(&p);
  for (size_t i = 0; i < program.functions_.size(); ++i) {
    const codegen::CudaKernel& k = program.kernels_[i];
    CUresult r = api_->cuLaunchKernel(program.functions_[i], Dim(k.grid[0]), Dim(k.grid[1]), Dim(k.grid[2]),
                                      Dim(k.block[0]), Dim(k.block[1]), Dim(k.block[2]), 0, nullptr,
                                      params.data(), nullptr);
    if (absl::Status s = Check(r, absl::StrCat("launching kernel '", k.name, "'")); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<double> GpuRunner::TimeRuns(const GpuProgram& program, int number) {
  if (absl::Status s = Check(api_->cuEventRecord(start_, nullptr), "recording an event"); !s.ok()) return s;
  for (int i = 0; i < number; ++i)
    if (absl::Status s = Launch(program); !s.ok()) return s;
  if (absl::Status s = Check(api_->cuEventRecord(stop_, nullptr), "recording an event"); !s.ok()) return s;
  if (absl::Status s = Check(api_->cuEventSynchronize(stop_), "running the kernels"); !s.ok()) return s;
  float ms = 0;
  if (absl::Status s = Check(api_->cuEventElapsedTime(&ms, start_, stop_), "reading the events"); !s.ok()) return s;
  return ms / 1e3 / number;
}

absl::StatusOr<double> GpuRunner::RunAndFetch(const GpuProgram& program, std::vector<te::NDArray>& outputs) {
  for (size_t i = num_inputs_; i < args_.size(); ++i)
    if (absl::Status s = Check(api_->cuMemsetD8(args_[i], 0xff, static_cast<size_t>(arg_bytes_[i])),
                               "filling the outputs");
        !s.ok())
      return s;
  absl::StatusOr<double> seconds = TimeRuns(program, 1);
  if (!seconds.ok()) return seconds.status();
  for (size_t i = 0; i < outputs.size() && num_inputs_ + i < args_.size(); ++i)
    if (absl::Status s = Check(api_->cuMemcpyDtoH(outputs[i].data(), args_[num_inputs_ + i],
                                                  static_cast<size_t>(arg_bytes_[num_inputs_ + i])),
                               "copying an output from the GPU");
        !s.ok())
      return s;
  return seconds;
}

absl::StatusOr<TimingResult> GpuRunner::Time(const GpuProgram& program, const TimingOptions& options) {
  TimingResult result;
  int number = std::max(1, options.number);
  // Calibration: the first pass that lasts min_repeat_ms is the first repeat.
  for (;;) {
    absl::StatusOr<double> t = TimeRuns(program, number);
    if (!t.ok()) return t.status();
    result.timed_ms += *t * number * 1e3;
    if (*t * number * 1e3 >= options.min_repeat_ms || number >= kMaxRunsPerRepeat) {
      result.repeat_seconds.push_back(*t);
      break;
    }
    const double wanted = options.min_repeat_ms / 1e3 / std::max(*t, 1e-9) * 1.1;
    number = static_cast<int>(std::min<double>(kMaxRunsPerRepeat, std::max<double>(2.0 * number, std::ceil(wanted))));
  }
  for (int r = 1; r < options.repeat; ++r) {
    absl::StatusOr<double> t = TimeRuns(program, number);
    if (!t.ok()) return t.status();
    result.timed_ms += *t * number * 1e3;
    result.repeat_seconds.push_back(*t);
  }
  result.number = number;
  result.median_seconds = Median(result.repeat_seconds);
  return result;
}

}  // namespace tuneforge::measure
