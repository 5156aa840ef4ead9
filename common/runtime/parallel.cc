#include "common/runtime/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace tuneforge::runtime {
namespace {

// A fixed pool of worker threads; the caller of a parallel loop works too.
// Workers wait on a generation counter, take one chunk each by index, and
// the caller waits until all chunks are done. Parallel loops are short and
// frequent (one per kernel run), so threads persist between calls.
class ThreadPool {
 public:
  static ThreadPool& Get() {
    static ThreadPool* pool = new ThreadPool();  // never destroyed: kernels may run at exit
    return *pool;
  }

  void SetNumThreads(int n) {
    std::lock_guard<std::mutex> run_lock(run_mu_);
    n = std::max(1, n);
    if (n == num_threads_) return;
    StopWorkers();
    num_threads_ = n;
    StartWorkers();
  }
  int num_threads() const { return num_threads_; }

  int32_t Run(int64_t n, tuneforge_parallel_task task, void* closure) {
    if (n <= 0) return 0;
    if (in_task_ || num_threads_ == 1 || n == 1) return task(0, n, closure);
    std::lock_guard<std::mutex> run_lock(run_mu_);  // one parallel loop at a time
    int chunks = static_cast<int>(std::min<int64_t>(n, num_threads_));
    {
      std::lock_guard<std::mutex> lock(mu_);
      task_ = task;
      closure_ = closure;
      n_ = n;
      chunks_ = chunks;
      next_chunk_.store(1);  // chunk 0 is the caller's
      pending_ = chunks;
      result_.store(0);
      ++generation_;
    }
    cv_.notify_all();
    RunChunk(0);
    // Help with chunks no worker has taken yet, then wait for the rest.
    for (int c; (c = next_chunk_.fetch_add(1)) < chunks;) RunChunk(c);
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
    return result_.load();
  }

 private:
  ThreadPool() {
    int n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    if (const char* env = std::getenv("TUNEFORGE_NUM_THREADS")) n = std::atoi(env);
    num_threads_ = std::max(1, n);
    StartWorkers();
  }

  void RunChunk(int c) {
    int64_t begin = n_ * c / chunks_, end = n_ * (c + 1) / chunks_;
    in_task_ = true;
    int32_t r = begin < end ? task_(begin, end, closure_) : 0;
    in_task_ = false;
    if (r != 0) {
      int32_t expected = 0;
      result_.compare_exchange_strong(expected, r);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (--pending_ == 0) done_cv_.notify_all();
  }

  void WorkerLoop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      for (int c; (c = next_chunk_.fetch_add(1)) < chunks_;) RunChunk(c);
    }
  }

  void StartWorkers() {
    stop_ = false;
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  }
  void StopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  std::mutex run_mu_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  int num_threads_ = 1;
  bool stop_ = false;
  uint64_t generation_ = 0;
  tuneforge_parallel_task task_ = nullptr;
  void* closure_ = nullptr;
  int64_t n_ = 0;
  int chunks_ = 0;
  std::atomic<int> next_chunk_{0};
  int pending_ = 0;
  std::atomic<int32_t> result_{0};
  static thread_local bool in_task_;
};

thread_local bool ThreadPool::in_task_ = false;

}  // namespace

void SetNumThreads(int n) { ThreadPool::Get().SetNumThreads(n); }
int NumThreads() { return ThreadPool::Get().num_threads(); }

}  // namespace tuneforge::runtime

extern "C" {

int32_t tuneforge_parallel_for(int64_t n, tuneforge_parallel_task task, void* closure) {
  return tuneforge::runtime::ThreadPool::Get().Run(n, task, closure);
}

void* tuneforge_alloc(int64_t bytes) {
  if (bytes <= 0) bytes = 1;
  size_t rounded = (static_cast<size_t>(bytes) + 63) / 64 * 64;
  return std::aligned_alloc(64, rounded);
}

void tuneforge_free(void* ptr) { std::free(ptr); }

}  // extern "C"
