// The machine's measured single-precision FMA peak: independent FMA chains
// on the widest vector registers, on `threads` threads at once.
#pragma once

namespace tuneforge::bench {

// GFLOP/s (an FMA counts 2). Uses AVX-512 when the CPU has it, else AVX2+FMA,
// else scalar; `isa` receives which.
double MeasureFmaPeakGflops(int threads, const char** isa);

}  // namespace tuneforge::bench
