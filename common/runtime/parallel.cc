#include "common/runtime/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace tuneforge::runtime {
namespace {

// One parallel loop: [0, n) split into `chunks` contiguous ranges.
struct Job {
  tuneforge_parallel_task task = nullptr;
  void* closure = nullptr;
  int64_t n = 0;
  int chunks = 0;
};

// A fixed pool of worker threads; the caller of a parallel loop works too.
// Each loop gets a generation number; workers copy the job under the lock
// and claim chunks from a counter that carries the generation, so a worker
// that wakes late (preempted on a busy machine) can never claim a chunk of a
// later loop with the parameters of an earlier one. The caller waits until
// all chunks are done. Threads persist between calls (one loop per kernel
// run, thousands of runs).
//
// Waking a sleeping thread (futex, scheduler) costs tens of microseconds on
// a VM: more than a whole small kernel (a 14x14 depthwise conv runs in
// ~16 us). Kernels are timed and run back to back, so workers spin a while
// for the next loop, and the caller for the last chunks, before sleeping,
// as OpenMP runtimes do (their block time).
class ThreadPool {
 public:
  static ThreadPool& Get() { return *Instance(); }

  // A forked child has only the thread that forked: the pool's threads did
  // not come along, and its locks are in whatever state they were. The
  // child gets a new pool of the same size; the old one is abandoned.
  static void ReplaceAfterFork() {
    const int n = Instance()->num_threads_.load();
    Instance() = new ThreadPool(n);
  }

  void SetNumThreads(int n) {
    std::lock_guard<std::mutex> run_lock(run_mu_);
    n = std::max(1, n);
    if (n == num_threads_.load()) return;
    StopWorkers();
    num_threads_.store(n);
    StartWorkers();
  }
  int num_threads() const { return num_threads_.load(); }

  int32_t Run(int64_t n, tuneforge_parallel_task task, void* closure) {
    if (n <= 0) return 0;
    if (in_task_ || n == 1 || num_threads_.load() == 1) return RunInline(n, task, closure);
    std::lock_guard<std::mutex> run_lock(run_mu_);  // one parallel loop at a time
    Job job{task, closure, n, static_cast<int>(std::min<int64_t>(n, num_threads_.load()))};
    uint32_t generation;
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = job;
      pending_ = job.chunks;
      result_.store(0);
      participants_.store(1);  // the caller
      generation = ++generation_;
      next_chunk_.store(Pack(generation, 1));  // chunk 0 is the caller's
    }
    cv_.notify_all();
    RunChunk(job, 0);
    // Help with chunks no worker has taken yet, then wait for the rest.
    for (int c; TakeChunk(generation, job.chunks, &c);) RunChunk(job, c);
    SpinWhile([&] { return pending_.load(std::memory_order_acquire) != 0; });
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return pending_.load() == 0; });
    last_participants_ = participants_.load();
    return result_.load();
  }

  int last_participants() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_participants_;
  }

 private:
  static ThreadPool*& Instance() {
    static ThreadPool* pool = new ThreadPool(DefaultThreads());  // never destroyed: kernels may run at exit
    return pool;
  }

  static int DefaultThreads() {
    int n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    if (const char* env = std::getenv("TUNEFORGE_NUM_THREADS")) n = std::atoi(env);
    return n;
  }

  explicit ThreadPool(int n) {
    num_threads_.store(std::max(1, n));
    StartWorkers();
  }

  // Busy-waits while `waiting()` holds, for at most kSpin; the caller then
  // sleeps on a condition variable if it still must wait.
  template <class Waiting>
  static void SpinWhile(const Waiting& waiting) {
    constexpr auto kSpin = std::chrono::microseconds(2000);
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 0; waiting(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
      if ((i & 255) == 255 && std::chrono::steady_clock::now() > until) return;
    }
  }

  static uint64_t Pack(uint32_t generation, uint32_t chunk) {
    return (static_cast<uint64_t>(generation) << 32) | chunk;
  }

  // Claims the next chunk of loop `generation`; false when none is left or
  // a newer loop has started.
  bool TakeChunk(uint32_t generation, int chunks, int* chunk) {
    uint64_t current = next_chunk_.load();
    for (;;) {
      if (static_cast<uint32_t>(current >> 32) != generation) return false;
      uint32_t index = static_cast<uint32_t>(current);
      if (index >= static_cast<uint32_t>(chunks)) return false;
      if (next_chunk_.compare_exchange_weak(current, current + 1)) {
        *chunk = static_cast<int>(index);
        return true;
      }
    }
  }

  // Nested loops (and single-thread pools) run on the calling thread.
  static int32_t RunInline(int64_t n, tuneforge_parallel_task task, void* closure) {
    bool outer = in_task_;
    in_task_ = true;
    int32_t r = task(0, n, closure);
    in_task_ = outer;
    return r;
  }

  void RunChunk(const Job& job, int c) {
    int64_t begin = job.n * c / job.chunks, end = job.n * (c + 1) / job.chunks;
    in_task_ = true;
    int32_t r = begin < end ? job.task(begin, end, job.closure) : 0;
    in_task_ = false;
    if (r != 0) {
      int32_t expected = 0;
      result_.compare_exchange_strong(expected, r);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (--pending_ == 0) done_cv_.notify_all();
  }

  void WorkerLoop() {
    uint32_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen = generation_;  // a new worker does not join a loop already running
      ++started_;
    }
    started_cv_.notify_all();
    for (;;) {
      SpinWhile([&] { return generation_.load(std::memory_order_acquire) == seen && !stopping_.load(); });
      Job job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      bool counted = false;
      for (int c; TakeChunk(seen, job.chunks, &c);) {
        // Counted before the chunk runs, so the caller sees it once all
        // chunks are done.
        if (!counted) participants_.fetch_add(1);
        counted = true;
        RunChunk(job, c);
      }
    }
  }

  // Returns once every worker waits for loops: one started later would sit
  // out the next loop (it joins only loops begun after it started), which a
  // forked child's first kernel run would then run on fewer threads.
  void StartWorkers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = false;
      started_ = 0;
    }
    stopping_.store(false);
    const int workers = num_threads_.load() - 1;
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
    std::unique_lock<std::mutex> lock(mu_);
    started_cv_.wait(lock, [&] { return started_ == workers; });
  }
  void StopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      stopping_.store(true);
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  std::mutex run_mu_;  // held for a whole parallel loop
  std::mutex mu_;      // guards the fields below that are not atomic
  std::condition_variable cv_, done_cv_, started_cv_;
  int started_ = 0;  // workers of this start that wait for loops
  std::vector<std::thread> workers_;
  std::atomic<int> num_threads_{1};
  bool stop_ = false;
  std::atomic<bool> stopping_{false};       // stop_, for spinning workers
  std::atomic<uint32_t> generation_{0};     // written under mu_, spun on without it
  Job job_;
  std::atomic<int> pending_{0};             // chunks not finished; written under mu_
  std::atomic<uint64_t> next_chunk_{0};  // Pack(generation, next chunk index)
  std::atomic<int32_t> result_{0};
  std::atomic<int> participants_{0};
  int last_participants_ = 0;
  static thread_local bool in_task_;
};

thread_local bool ThreadPool::in_task_ = false;

}  // namespace

void SetNumThreads(int n) { ThreadPool::Get().SetNumThreads(n); }
int NumThreads() { return ThreadPool::Get().num_threads(); }
int ThreadsUsedByLastParallelFor() { return ThreadPool::Get().last_participants(); }
void RestartAfterFork() { ThreadPool::ReplaceAfterFork(); }

}  // namespace tuneforge::runtime

extern "C" {

int32_t tuneforge_parallel_for(int64_t n, tuneforge_parallel_task task, void* closure) {
  return tuneforge::runtime::ThreadPool::Get().Run(n, task, closure);
}

}  // extern "C"
