#include "bench/peers/fma_peak.h"

#include <immintrin.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tuneforge::bench {
namespace {

constexpr long kIterations = 100'000'000;  // ~0.4 s per run: long enough to be stable

// Twelve independent accumulators (named variables, so they stay in
// registers) hide the FMA latency on every current x86 core.
#define TF_FMA12(FMA, a, m, c)                                                         \
  a##0 = FMA(a##0, m, c); a##1 = FMA(a##1, m, c); a##2 = FMA(a##2, m, c);                \
  a##3 = FMA(a##3, m, c); a##4 = FMA(a##4, m, c); a##5 = FMA(a##5, m, c);                \
  a##6 = FMA(a##6, m, c); a##7 = FMA(a##7, m, c); a##8 = FMA(a##8, m, c);                \
  a##9 = FMA(a##9, m, c); a##10 = FMA(a##10, m, c); a##11 = FMA(a##11, m, c);
#define TF_SUM12(ADD, a) \
  ADD(ADD(ADD(ADD(a##0, a##1), ADD(a##2, a##3)), ADD(ADD(a##4, a##5), ADD(a##6, a##7))), \
      ADD(ADD(a##8, a##9), ADD(a##10, a##11)))

__attribute__((target("avx512f"))) double Avx512Chain(float seed) {
  __m512 x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11;
  // Distinct starting values, or the compiler merges identical chains.
  x0 = _mm512_set1_ps(seed + 0.01f); x1 = _mm512_set1_ps(seed + 0.02f);
  x2 = _mm512_set1_ps(seed + 0.03f); x3 = _mm512_set1_ps(seed + 0.04f);
  x4 = _mm512_set1_ps(seed + 0.05f); x5 = _mm512_set1_ps(seed + 0.06f);
  x6 = _mm512_set1_ps(seed + 0.07f); x7 = _mm512_set1_ps(seed + 0.08f);
  x8 = _mm512_set1_ps(seed + 0.09f); x9 = _mm512_set1_ps(seed + 0.10f);
  x10 = _mm512_set1_ps(seed + 0.11f); x11 = _mm512_set1_ps(seed + 0.12f);
  __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < kIterations; ++i) {
    TF_FMA12(_mm512_fmadd_ps, x, m, c)
  }
  // Summed by hand: GCC 12's _mm512_reduce_add_ps reads an uninitialised
  // register in its headers (-Wuninitialized).
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, TF_SUM12(_mm512_add_ps, x));
  double sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

__attribute__((target("avx2,fma"))) double Avx2Chain(float seed) {
  __m256 x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11;
  x0 = _mm256_set1_ps(seed + 0.01f); x1 = _mm256_set1_ps(seed + 0.02f);
  x2 = _mm256_set1_ps(seed + 0.03f); x3 = _mm256_set1_ps(seed + 0.04f);
  x4 = _mm256_set1_ps(seed + 0.05f); x5 = _mm256_set1_ps(seed + 0.06f);
  x6 = _mm256_set1_ps(seed + 0.07f); x7 = _mm256_set1_ps(seed + 0.08f);
  x8 = _mm256_set1_ps(seed + 0.09f); x9 = _mm256_set1_ps(seed + 0.10f);
  x10 = _mm256_set1_ps(seed + 0.11f); x11 = _mm256_set1_ps(seed + 0.12f);
  __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < kIterations; ++i) {
    TF_FMA12(_mm256_fmadd_ps, x, m, c)
  }
  float out[8];
  _mm256_storeu_ps(out, TF_SUM12(_mm256_add_ps, x));
  return out[0];
}

}  // namespace

double MeasureFmaPeakGflops(int threads, const char** isa) {
  bool avx512 = __builtin_cpu_supports("avx512f");
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  int lanes = avx512 ? 16 : avx2 ? 8 : 0;
  if (isa) *isa = avx512 ? "avx512" : avx2 ? "avx2" : "none";
  if (lanes == 0) return 0;
  std::atomic<double> sink{0};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      double r = avx512 ? Avx512Chain(1.0f + t) : Avx2Chain(1.0f + t);
      sink.store(r);
    });
  for (auto& th : pool) th.join();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double flops = 2.0 * lanes * 12.0 * kIterations * threads;
  return flops / s / 1e9;
}

}  // namespace tuneforge::bench
