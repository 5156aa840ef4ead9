#include "bench/peers/openblas_sgemm.h"

#include <cblas.h>

#include <vector>

#include "bench/timing.h"

extern "C" char* openblas_get_corename(void);
extern "C" void openblas_set_num_threads(int num_threads);

namespace tuneforge::bench {

double TimeOpenBlasSgemm(int m, int n, int k, int threads) {
  openblas_set_num_threads(threads);
  std::vector<float> a(static_cast<size_t>(m) * k, 0.5f), b(static_cast<size_t>(k) * n, 0.25f),
      c(static_cast<size_t>(m) * n);
  return TimeSeconds([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n,
                0.0f, c.data(), n);
  });
}

std::string OpenBlasCoreName() { return openblas_get_corename(); }

}  // namespace tuneforge::bench
