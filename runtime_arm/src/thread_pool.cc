// Workers poll, then sleep on a condition variable between jobs; within a job, each thread claims
// tasks from atomic counters (which thread runs a task varies, what a task computes does not).
#include "thread_pool.h"

#include <new>

#include "cpu_affinity.h"

namespace lite {

std::unique_ptr<ThreadPool> ThreadPool::create(int num_threads, const std::vector<int>& cpus) {
  std::unique_ptr<ThreadPool> pool(new (std::nothrow) ThreadPool());
  if (pool == nullptr) return nullptr;
  if (num_threads < 1) num_threads = 1;
  pool->threads_ = num_threads;
  pool->cpus_ = cpus;
  pool->shares_.reset(new (std::nothrow) Share[static_cast<size_t>(num_threads)]);
  pool->starts_.reset(new (std::nothrow) WorkerStart[static_cast<size_t>(num_threads)]);
  pool->workers_.reset(new (std::nothrow) pthread_t[static_cast<size_t>(num_threads)]);
  if (pool->shares_ == nullptr || pool->starts_ == nullptr || pool->workers_ == nullptr) return nullptr;
  for (int w = 1; w < num_threads; ++w) {
    pool->starts_[w] = WorkerStart{pool.get(), w};
    // pthread_create, not std::thread: the runtime is built without exceptions, and a thread the OS
    // refuses (EAGAIN) must become an error the caller sees, not an abort. The destructor stops the
    // workers started so far.
    if (pthread_create(&pool->workers_[w], nullptr, &ThreadPool::worker_main, &pool->starts_[w]) != 0) return nullptr;
    pool->started_ = w;
  }
  return pool;
}

void* ThreadPool::worker_main(void* start) {
  const WorkerStart* s = static_cast<const WorkerStart*>(start);
  // A mask the OS refuses leaves the worker where it was: pinning changes speed, never results.
  if (!s->pool->cpus_.empty()) set_current_thread_cpus(s->pool->cpus_);
  s->pool->worker_loop(s->worker);
  return nullptr;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (int w = 1; w <= started_; ++w) pthread_join(workers_[w], nullptr);
}

// Own share first, then the others' in turn: consecutive ops split their rows the same way, so a
// thread mostly reads what it wrote itself (cache-resident) instead of the other core's half; the
// shares of a worker that is late or busy elsewhere are still taken by the others.
void ThreadPool::run_tasks(int worker) {
  const int threads = num_threads();
  for (int i = 0; i < threads; ++i) {
    Share& share = shares_[static_cast<size_t>((worker + i) % threads)];
    for (;;) {
      const size_t t = share.next.fetch_add(1, std::memory_order_relaxed);
      if (t >= share.end) break;
      fn_(context_, t, worker);
    }
  }
}

namespace {

// Polls before sleeping on a condition variable (tens of microseconds): the ops of one inference start
// jobs microseconds apart, and a futex wake-up costs more than that. Bounded, so an idle or
// oversubscribed process soon stops taking CPU from others.
constexpr int kSpinPolls = 2000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

}  // namespace

void ThreadPool::worker_loop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    for (int i = 0; i < kSpinPolls && generation_.load(std::memory_order_acquire) == seen; ++i) cpu_relax();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_cv_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      // A worker that wakes after the caller has run every task stays out of the job.
      if (!open_) continue;
      ++busy_;
    }
    run_tasks(worker);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(size_t n, TaskFn fn, void* context) {
  if (n == 0) return;
  if (threads_ <= 1 || n == 1) {
    for (size_t t = 0; t < n; ++t) fn(context, t, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = fn;
    context_ = context;
    const size_t threads = static_cast<size_t>(num_threads());
    for (size_t w = 0; w < threads; ++w) {
      shares_[w].next.store(n * w / threads, std::memory_order_relaxed);
      shares_[w].end = n * (w + 1) / threads;
    }
    open_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_cv_.notify_all();
  run_tasks(0);
  {
    // Every task is claimed: close the job, then wait only for the workers inside it.
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = false;
  }
  for (int i = 0; i < kSpinPolls && busy_.load(std::memory_order_acquire) != 0; ++i) cpu_relax();
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [&] { return busy_.load(std::memory_order_relaxed) == 0; });
}

}  // namespace lite
