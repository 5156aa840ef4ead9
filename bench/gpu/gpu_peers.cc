// tuneforge-gpu-peers: times NVIDIA's libraries (cuBLAS sgemm, cuDNN conv2d)
// on the GPU in fp32, so tuneforge's GPU kernels have a vendor baseline.
//
//   tuneforge-gpu-peers [--matmul M,N,K]... [--conv N,C,H,W,K,R,S,stride,pad]...
//                       [--repeat R] [--json]
//
// Workloads are printed in tuneforge's spec spelling so a script can join the
// lines with tuneforge's own results. Every CUDA/cuBLAS/cuDNN failure prints
// one line naming the call and exits 1; so does a machine without a GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr const char* kProg = "tuneforge-gpu-peers";

[[noreturn]] void Fail(const char* call, const char* what) {
  std::fprintf(stderr, "%s: %s failed: %s\n", kProg, call, what);
  std::exit(1);
}

void Check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) Fail(call, cudaGetErrorString(e));
}
void Check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) Fail(call, cublasGetStatusString(s));
}
void Check(cudnnStatus_t s, const char* call) {
  if (s != CUDNN_STATUS_SUCCESS) Fail(call, cudnnGetErrorString(s));
}
// The call's own text names it in the error line.
#define CHECK(call) Check((call), #call)

[[noreturn]] void Usage(const std::string& why) {
  if (!why.empty()) std::fprintf(stderr, "%s: %s\n", kProg, why.c_str());
  std::fprintf(stderr,
               "usage: %s [--matmul M,N,K]... [--conv N,C,H,W,K,R,S,stride,pad]... [--repeat R] [--json]\n"
               "  default workloads: --matmul 4096,4096,4096 --conv 1,256,14,14,256,3,3,1,1\n",
               kProg);
  std::exit(why.empty() ? 0 : 2);
}

struct Matmul {
  int m, n, k;
};
struct Conv {
  int n, c, h, w, k, r, s, stride, pad;
  int P() const { return (h + 2 * pad - r) / stride + 1; }
  int Q() const { return (w + 2 * pad - s) / stride + 1; }
};

// Parses "a,b,c" into exactly `count` ints, each >= `min` (pad may be 0).
std::vector<int> ParseInts(const char* flag, const std::string& text, size_t count, const std::vector<int>& mins) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || v > INT32_MAX || v < mins[out.size() % mins.size()]) {
      Usage(std::string(flag) + " " + text + ": '" + item + "' is not a valid value");
    }
    out.push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (out.size() != count) {
    Usage(std::string(flag) + " " + text + ": expected " + std::to_string(count) + " comma-separated integers");
  }
  return out;
}

std::string MatmulSpec(const Matmul& w) {
  return "matmul:M=" + std::to_string(w.m) + ",N=" + std::to_string(w.n) + ",K=" + std::to_string(w.k);
}

// tuneforge's spelling: stride and pad left out at their defaults (1 and 0).
std::string ConvSpec(const Conv& w) {
  std::string s = "conv2d:N=" + std::to_string(w.n) + ",C=" + std::to_string(w.c) + ",H=" + std::to_string(w.h) +
                  ",W=" + std::to_string(w.w) + ",K=" + std::to_string(w.k) + ",R=" + std::to_string(w.r) +
                  ",S=" + std::to_string(w.s);
  if (w.stride != 1) s += ",stride=" + std::to_string(w.stride);
  if (w.pad != 0) s += ",pad=" + std::to_string(w.pad);
  return s;
}

// Device buffer of `count` floats, filled from a fixed seed so runs repeat.
float* RandomBuffer(size_t count, unsigned seed) {
  std::vector<float> host(count);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : host) v = dist(gen);
  float* dev = nullptr;
  CHECK(cudaMalloc(&dev, count * sizeof(float)));
  CHECK(cudaMemcpy(dev, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  return dev;
}

// Median seconds per run: 3 warm-up runs, then as many runs per repeat as make
// a repeat last >= 100 ms (so event resolution and launch jitter don't matter),
// then `repeat` timed repeats. `run` enqueues one run on the default stream.
double MedianSecondsPerRun(const std::function<void()>& run, int repeat) {
  for (int i = 0; i < 3; ++i) run();
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  auto time_runs = [&](int runs) {
    CHECK(cudaEventRecord(start, 0));
    for (int i = 0; i < runs; ++i) run();
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms / 1e3;
  };
  int runs = 1;
  for (;;) {
    double t = time_runs(runs);
    if (t >= 0.1 || runs >= (1 << 26)) break;
    // Aim a little past 100 ms, but grow at most 10x a step in case the first
    // short timing was mostly launch overhead.
    double want = t > 0 ? std::ceil(runs * 0.12 / t) : runs * 10.0;
    runs = static_cast<int>(std::clamp(want, runs + 1.0, runs * 10.0));
  }
  std::vector<double> per_run;
  for (int i = 0; i < repeat; ++i) per_run.push_back(time_runs(runs) / runs);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(per_run.begin(), per_run.end());
  size_t mid = per_run.size() / 2;
  return per_run.size() % 2 ? per_run[mid] : (per_run[mid - 1] + per_run[mid]) / 2;
}

bool g_json = false;

void Report(const char* peer, const std::string& workload, double seconds, double flops, const std::string& algo) {
  double gflops = flops / seconds / 1e9;
  if (g_json) {
    std::printf("{\"peer\":\"%s\",\"workload\":\"%s\",\"seconds\":%.9g,\"gflops\":%.6g", peer, workload.c_str(),
                seconds, gflops);
    if (!algo.empty()) std::printf(",\"algo\":\"%s\"", algo.c_str());
    std::printf("}\n");
  } else {
    std::printf("%-18s  %-52s  %10.4f  %10.1f", peer, workload.c_str(), seconds * 1e3, gflops);
    if (!algo.empty()) std::printf("  algo=%s", algo.c_str());
    std::printf("\n");
  }
  std::fflush(stdout);
}

// Row-major C[M,N] = A[M,K] * B[K,N]: column-major cuBLAS sees row-major
// matrices transposed, so it computes C^T = B^T * A^T with the operands swapped.
void BenchMatmul(cublasHandle_t handle, const Matmul& w, int repeat) {
  float* a = RandomBuffer(size_t(w.m) * w.k, 1);
  float* b = RandomBuffer(size_t(w.k) * w.n, 2);
  float* c = nullptr;
  CHECK(cudaMalloc(&c, size_t(w.m) * w.n * sizeof(float)));
  const float alpha = 1.0f, beta = 0.0f;
  auto run = [&] { CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, w.n, w.m, w.k, &alpha, b, w.n, a, w.k, &beta,
                                     c, w.n)); };
  double flops = 2.0 * w.m * w.n * w.k;
  // Plain fp32 (no TF32) is the baseline; TF32 is reported on its own line
  // because users compare against both.
  CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  Report("cublas_sgemm", MatmulSpec(w), MedianSecondsPerRun(run, repeat), flops, "");
  CHECK(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
  Report("cublas_sgemm_tf32", MatmulSpec(w), MedianSecondsPerRun(run, repeat), flops, "");
  CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
}

const char* AlgoName(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "UNKNOWN";
  }
}

// fp32 math without TF32: FMA_MATH forbids tensor cores (cuDNN >= 8), while
// DEFAULT_MATH lets cuDNN 8+ use TF32 for fp32 convolutions.
#if CUDNN_MAJOR >= 8
constexpr cudnnMathType_t kConvMath = CUDNN_FMA_MATH;
#else
constexpr cudnnMathType_t kConvMath = CUDNN_DEFAULT_MATH;
#endif

void BenchConv(cudnnHandle_t handle, const Conv& w, int repeat) {
  const int p = w.P(), q = w.Q();
  cudnnTensorDescriptor_t x_desc, y_desc;
  cudnnFilterDescriptor_t w_desc;
  cudnnConvolutionDescriptor_t conv_desc;
  CHECK(cudnnCreateTensorDescriptor(&x_desc));
  CHECK(cudnnCreateTensorDescriptor(&y_desc));
  CHECK(cudnnCreateFilterDescriptor(&w_desc));
  CHECK(cudnnCreateConvolutionDescriptor(&conv_desc));
  CHECK(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, w.n, w.c, w.h, w.w));
  CHECK(cudnnSetFilter4dDescriptor(w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, w.k, w.c, w.r, w.s));
  CHECK(cudnnSetConvolution2dDescriptor(conv_desc, w.pad, w.pad, w.stride, w.stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT));
  CHECK(cudnnSetConvolutionMathType(conv_desc, kConvMath));
  int on, ok, op, oq;
  CHECK(cudnnGetConvolution2dForwardOutputDim(conv_desc, x_desc, w_desc, &on, &ok, &op, &oq));
  if (on != w.n || ok != w.k || op != p || oq != q) {
    Fail("cudnnGetConvolution2dForwardOutputDim", "output shape differs from [N,K,P,Q] computed here");
  }
  CHECK(cudnnSetTensor4dDescriptor(y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, w.n, w.k, p, q));

  float* x = RandomBuffer(size_t(w.n) * w.c * w.h * w.w, 3);
  float* f = RandomBuffer(size_t(w.k) * w.c * w.r * w.s, 4);
  float* y = nullptr;
  CHECK(cudaMalloc(&y, size_t(w.n) * w.k * p * q * sizeof(float)));
  // Up to 1 GiB of workspace, less where the GPU has little memory free.
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  size_t ws_limit = std::min<size_t>(size_t(1) << 30, free_bytes / 2);
  void* ws = nullptr;
  if (ws_limit > 0) CHECK(cudaMalloc(&ws, ws_limit));

  int max_algos = 0, found = 0;
  CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_algos));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(std::max(max_algos, 1));
  CHECK(cudnnFindConvolutionForwardAlgorithmEx(handle, x_desc, x, w_desc, f, conv_desc, y_desc, y,
                                               static_cast<int>(perf.size()), &found, perf.data(), ws, ws_limit));
  // Results come fastest first; take the first that ran, fits the workspace
  // and stayed off tensor cores (which would mean TF32).
  const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
  for (int i = 0; i < found && !best; ++i) {
    const auto& r = perf[i];
    if (r.status == CUDNN_STATUS_SUCCESS && r.memory <= ws_limit && r.mathType != CUDNN_TENSOR_OP_MATH &&
        r.mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) {
      best = &r;
    }
  }
  if (!best) Fail("cudnnFindConvolutionForwardAlgorithmEx", "no fp32 algorithm ran for this convolution");
  const cudnnConvolutionFwdAlgo_t algo = best->algo;
  const size_t ws_used = best->memory;
  CHECK(cudnnSetConvolutionMathType(conv_desc, best->mathType));

  const float alpha = 1.0f, beta = 0.0f;
  auto run = [&] { CHECK(cudnnConvolutionForward(handle, &alpha, x_desc, x, w_desc, f, conv_desc, algo, ws, ws_used,
                                                 &beta, y_desc, y)); };
  double flops = 2.0 * w.n * w.k * p * q * double(w.c) * w.r * w.s;
  Report("cudnn_conv", ConvSpec(w), MedianSecondsPerRun(run, repeat), flops, AlgoName(algo));

  CHECK(cudaFree(x));
  CHECK(cudaFree(f));
  CHECK(cudaFree(y));
  if (ws) CHECK(cudaFree(ws));
  CHECK(cudnnDestroyConvolutionDescriptor(conv_desc));
  CHECK(cudnnDestroyFilterDescriptor(w_desc));
  CHECK(cudnnDestroyTensorDescriptor(y_desc));
  CHECK(cudnnDestroyTensorDescriptor(x_desc));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Matmul> matmuls;
  std::vector<Conv> convs;
  int repeat = 5;
  // Arguments are checked before touching the GPU, so typos show up anywhere.
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--matmul") {
      std::string v = value();
      std::vector<int> d = ParseInts("--matmul", v, 3, {1});
      matmuls.push_back({d[0], d[1], d[2]});
    } else if (arg == "--conv") {
      std::string v = value();
      std::vector<int> d = ParseInts("--conv", v, 9, {1, 1, 1, 1, 1, 1, 1, 1, 0});
      Conv c{d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]};
      if (c.P() < 1 || c.Q() < 1 || c.h + 2 * c.pad < c.r || c.w + 2 * c.pad < c.s) {
        Usage("--conv " + v + ": the filter is larger than the padded input");
      }
      convs.push_back(c);
    } else if (arg == "--repeat") {
      repeat = ParseInts("--repeat", value(), 1, {1})[0];
    } else if (arg == "--json") {
      g_json = true;
    } else if (arg == "--help" || arg == "-h") {
      Usage("");
    } else {
      Usage("unknown argument '" + arg + "'");
    }
  }
  if (matmuls.empty() && convs.empty()) {
    matmuls.push_back({4096, 4096, 4096});
    convs.push_back({1, 256, 14, 14, 256, 3, 3, 1, 1});
  }

  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "%s: no NVIDIA GPU here (%s): run it on a GPU machine\n", kProg,
                 e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA devices found");
    return 1;
  }
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // The device goes to stderr under --json so stdout stays one object a line.
  std::fprintf(g_json ? stderr : stdout, "# device: %s, cuBLAS %d, cuDNN %zu\n", prop.name, CUBLAS_VERSION,
               cudnnGetVersion());
  if (!g_json) std::printf("# %-16s  %-52s  %10s  %10s\n", "peer", "workload", "ms", "GFLOPS");

  if (!matmuls.empty()) {
    cublasHandle_t blas;
    CHECK(cublasCreate(&blas));
    for (const Matmul& w : matmuls) BenchMatmul(blas, w, repeat);
    CHECK(cublasDestroy(blas));
  }
  if (!convs.empty()) {
    cudnnHandle_t dnn;
    CHECK(cudnnCreate(&dnn));
    for (const Conv& w : convs) BenchConv(dnn, w, repeat);
    CHECK(cudnnDestroy(dnn));
  }
  return 0;
}
