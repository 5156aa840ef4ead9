// The runtime that generated code calls: a small persistent thread pool that
// runs parallel loops. Kernels call the C entry point below; the C++ side
// sets how many threads it uses.
#pragma once

#include <cstdint>

extern "C" {
// Runs task(begin, end, closure) over [0, n) split into contiguous chunks,
// one per pool thread, and waits. Returns the first non-zero task result, or
// 0. Called from inside a parallel task, it runs the whole range inline.
typedef int32_t (*tuneforge_parallel_task)(int64_t begin, int64_t end, void* closure);
int32_t tuneforge_parallel_for(int64_t n, tuneforge_parallel_task task, void* closure);
// Aligned (64-byte) scratch memory for large temporaries; null on failure.
// Freed blocks are kept for the next call of the same size (scratch.cc).
void* tuneforge_alloc(int64_t bytes);
void tuneforge_free(void* ptr);
}

namespace tuneforge::runtime {

// Threads parallel loops use (default: the number of online cores).
void SetNumThreads(int n);
int NumThreads();
// How many threads (the caller included) ran chunks of the most recent
// parallel loop that used the pool: shows whether a kernel really ran in
// parallel. 0 before the first such loop.
int ThreadsUsedByLastParallelFor();
// In a child just forked from a process that ran parallel loops (and before
// it runs one): a new pool of as many threads. Only the forking thread lives
// in the child, so the parent's pool cannot run its loops.
void RestartAfterFork();

}  // namespace tuneforge::runtime
