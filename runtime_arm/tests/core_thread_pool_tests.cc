// ThreadPool: every task of a parallel_for runs exactly once, worker indices stay below
// num_threads() and are never shared by two tasks running at the same moment (ops index per-thread
// scratch with them), and a pool serves many consecutive jobs (one per op of every invoke).
#include <atomic>
#include <vector>

#include "core_test_framework.h"
#include "thread_pool.h"

LITE_TEST(thread_pool_runs_every_task_once_over_many_jobs) {
  for (int threads : {1, 2, 4}) {
    std::unique_ptr<lite::ThreadPool> pool = lite::ThreadPool::create(threads);
    CHECK(pool != nullptr);
    CHECK(pool->num_threads() == threads);
    for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{64}, size_t{1000}}) {
      for (int round = 0; round < 20; ++round) {
        std::vector<std::atomic<int>> runs(n);
        std::vector<std::atomic<int>> busy(static_cast<size_t>(threads));
        std::atomic<bool> bad_worker{false}, shared_worker{false};
        lite::parallel_for(pool.get(), n, [&](size_t t, int w) {
          if (w < 0 || w >= threads) {
            bad_worker = true;
            return;
          }
          if (busy[static_cast<size_t>(w)].fetch_add(1) != 0) shared_worker = true;
          runs[t].fetch_add(1);
          busy[static_cast<size_t>(w)].fetch_sub(1);
        });
        CHECK(!bad_worker);
        CHECK(!shared_worker);
        for (size_t t = 0; t < n; ++t) CHECK_MSG(runs[t].load() == 1, "task %zu of %zu ran %d times", t, n, runs[t].load());
      }
    }
  }
}

LITE_TEST(thread_pool_null_pool_runs_inline) {
  int sum = 0;
  lite::parallel_for(static_cast<lite::ThreadPool*>(nullptr), 10, [&](size_t t, int w) { sum += static_cast<int>(t) + w; });
  CHECK(sum == 45);
}

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

// A thread the OS refuses to start gives a null pool (the interpreter reports "cannot start N
// threads"), never an abort: in a child whose address space is capped just above its current size,
// the 8 MiB thread stacks cannot be mapped. (x86-64 native only: under qemu-user the cap would bind
// the emulator, and sanitizers reserve terabytes of shadow memory.)
LITE_TEST(thread_pool_refused_threads_give_null_not_abort) {
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    long pages = 0;
    FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr || std::fscanf(statm, "%ld", &pages) != 1) _exit(3);
    std::fclose(statm);
    const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (32u << 20);
    const struct rlimit limit = {cap, cap};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(4);
    std::unique_ptr<lite::ThreadPool> pool = lite::ThreadPool::create(64);
    _exit(pool == nullptr ? 0 : 2);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d (2: 64 threads started under a 32 MiB cap)",
            status);
}
#endif
