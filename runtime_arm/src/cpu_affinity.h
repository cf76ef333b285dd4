// Which CPUs are the fast ones (the big cores of ARM big.LITTLE / DynamIQ), and pinning the calling
// thread to a set of CPUs. Pinning is Linux and Android only: elsewhere nothing is allowed, nothing
// is chosen and every pin fails, so the interpreter's cpu_affinity option does nothing there.
#pragma once

#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace lite {

// Where the kernel describes CPUs. The environment variable LITE_SYSFS_CPU_ROOT replaces it in
// fastest_allowed_cpus, so tests can describe CPUs the host does not have.
constexpr const char* kSysfsCpuRoot = "/sys/devices/system/cpu";

// The `count` fastest CPUs of `allowed`, in ascending order. Ranked by <root>/cpuN/cpu_capacity,
// or by <root>/cpuN/cpufreq/cpuinfo_max_freq when some allowed CPU has no valid capacity; equal
// ranks go to the lower CPU number. A value that is not a positive decimal number counts as
// missing. Empty when pinning cannot help: a CPU with neither value, every CPU ranked equal,
// count < 1, or a choice of every allowed CPU.
std::vector<int> fastest_cpus(int count, const std::vector<int>& allowed, const char* sysfs_cpu_root);

// fastest_cpus(count, allowed_cpus(), $LITE_SYSFS_CPU_ROOT or kSysfsCpuRoot).
std::vector<int> fastest_allowed_cpus(int count);

// The CPUs the calling thread may run on (sched_getaffinity), ascending; empty on error.
std::vector<int> allowed_cpus();

// Restricts the calling thread, not the process, to `cpus` (sched_setaffinity(0, ...) on glibc
// and bionic). False, and the mask unchanged, when `cpus` is empty or out of range or the OS
// refuses (e.g. none of them is in the thread's cpuset).
bool set_current_thread_cpus(const std::vector<int>& cpus);

// Pins the calling thread to `cpus` (nothing when empty) and gives it back its own mask when
// destroyed; must be destroyed by the thread that created it.
class ScopedThreadCpus {
 public:
  explicit ScopedThreadCpus(const std::vector<int>& cpus);
  ~ScopedThreadCpus();
  ScopedThreadCpus(const ScopedThreadCpus&) = delete;
  ScopedThreadCpus& operator=(const ScopedThreadCpus&) = delete;

  bool pinned() const { return pinned_; }

 private:
#if defined(__linux__)
  cpu_set_t saved_{};
#endif
  bool pinned_ = false;
};

}  // namespace lite
