// A fixed set of worker threads owned by one interpreter, lent to ops through OpContext::pool.
// The only operation is parallel_for over [0, n) tasks: the calling thread works too, and the
// call returns when every task is done. Ops split work into tiles whose count and bounds do not
// depend on the number of threads, so results are bit-identical for any thread count.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <vector>

namespace lite {

class ThreadPool {
 public:
  // task(context, task_index, worker_index): worker_index in [0, num_threads()) is unique among the
  // calls running at the same moment (for per-thread scratch).
  using TaskFn = void (*)(void* context, size_t task, int worker);

  // Creates num_threads - 1 workers (the caller of parallel_for is worker 0); num_threads <= 1 gives
  // a pool that runs everything inline. Returns null when out of memory. (A thread that the OS
  // refuses to start also gives null.) With `cpus`, each worker restricts itself to that set of
  // CPUs when it starts (best effort; the caller's own mask is the caller's business).
  static std::unique_ptr<ThreadPool> create(int num_threads, const std::vector<int>& cpus = {});
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return threads_; }
  void parallel_for(size_t n, TaskFn fn, void* context);

  // Convenience for lambdas: f(task, worker).
  template <typename F>
  void parallel_for(size_t n, F& f) {
    parallel_for(
        n, [](void* c, size_t t, int w) { (*static_cast<F*>(c))(t, w); },
        const_cast<void*>(static_cast<const void*>(&f)));
  }

 private:
  ThreadPool() = default;
  struct WorkerStart {
    ThreadPool* pool;
    int worker;
  };
  static void* worker_main(void* start);
  void worker_loop(int worker);
  void run_tasks(int worker);

  int threads_ = 1;
  std::vector<int> cpus_;  // the workers' CPUs, empty: wherever the OS puts them
  int started_ = 0;  // workers 1..started_ are running
  std::unique_ptr<WorkerStart[]> starts_;
  std::unique_ptr<pthread_t[]> workers_;  // [0] unused: the caller is worker 0
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  // The current job (valid while busy_ > 0).
  TaskFn fn_ = nullptr;
  void* context_ = nullptr;
  // Worker w first claims tasks from its own contiguous share [n*w/T, n*(w+1)/T), then from the
  // others' (see thread_pool.cc).
  struct alignas(64) Share {
    std::atomic<size_t> next{0};
    size_t end = 0;
  };
  std::unique_ptr<Share[]> shares_;
  std::atomic<uint64_t> generation_{0};  // written under mutex_, polled without it
  std::atomic<int> busy_{0};  // changed under mutex_, polled without it: workers in the current job
  bool open_ = false;        // under mutex_: workers may still join the current job
  bool stop_ = false;        // under mutex_
};

// Runs f(task, worker) for task in [0, n) on the pool, or inline when pool is null.
template <typename F>
void parallel_for(ThreadPool* pool, size_t n, const F& f) {
  if (pool == nullptr || pool->num_threads() <= 1 || n <= 1) {
    for (size_t t = 0; t < n; ++t) f(t, 0);
    return;
  }
  pool->parallel_for(n, f);
}

}  // namespace lite
