#include "cpu_affinity.h"

#include <cstdio>
#include <cstdlib>

namespace lite {

namespace {

// The file's content when it is one positive decimal number and an optional newline (how sysfs
// writes these values), else -1.
long long read_positive(const char* root, int cpu, const char* name) {
  char path[512];
  const int length = std::snprintf(path, sizeof(path), "%s/cpu%d/%s", root, cpu, name);
  if (length < 0 || static_cast<size_t>(length) >= sizeof(path)) return -1;
  std::FILE* file = std::fopen(path, "r");
  if (file == nullptr) return -1;
  char text[32];
  const size_t n = std::fread(text, 1, sizeof(text), file);
  std::fclose(file);
  if (n == 0 || n == sizeof(text)) return -1;
  long long value = 0;
  size_t i = 0;
  for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (value > 100000000000000LL) return -1;  // 1e14: far above any capacity or kHz
    value = value * 10 + (text[i] - '0');
  }
  if (i == 0) return -1;
  if (i < n && text[i] == '\n') ++i;
  return i == n && value > 0 ? value : -1;
}

}  // namespace

// Plain loops over a handful of CPUs: std::sort's instantiations would cost the ARM library ~2 KB.
std::vector<int> fastest_cpus(int count, const std::vector<int>& allowed, const char* sysfs_cpu_root) {
  std::vector<int> cpus;  // allowed, ascending, without duplicates or negatives
  for (int cpu : allowed) {
    if (cpu < 0) continue;
    cpus.push_back(cpu);
    size_t i = cpus.size() - 1;
    for (; i > 0 && cpus[i - 1] > cpu; --i) cpus[i] = cpus[i - 1];
    cpus[i] = cpu;
    if (i > 0 && cpus[i - 1] == cpu) cpus.erase(cpus.begin() + static_cast<long>(i));
  }
  if (count < 1 || sysfs_cpu_root == nullptr || static_cast<size_t>(count) >= cpus.size()) return {};

  // The first file every CPU has. Capacity first: it weighs the core type, which a maximum
  // frequency does not (a Cortex-A55 and a Cortex-A76 may both reach 2.0 GHz).
  std::vector<long long> rank;
  for (const char* name : {"cpu_capacity", "cpufreq/cpuinfo_max_freq"}) {
    rank.clear();
    for (int cpu : cpus) {
      const long long value = read_positive(sysfs_cpu_root, cpu, name);
      if (value < 0) break;
      rank.push_back(value);
    }
    if (rank.size() == cpus.size()) break;
  }
  if (rank.size() != cpus.size()) return {};
  bool alike = true;
  for (long long value : rank) alike = alike && value == rank[0];
  if (alike) return {};

  // `count` times the highest rank not taken yet; scanning upwards, a tie keeps the lower CPU.
  std::vector<char> taken(cpus.size(), 0);
  for (int k = 0; k < count; ++k) {
    size_t best = cpus.size();
    for (size_t i = 0; i < cpus.size(); ++i)
      if (!taken[i] && (best == cpus.size() || rank[i] > rank[best])) best = i;
    taken[best] = 1;
  }
  std::vector<int> chosen;
  for (size_t i = 0; i < cpus.size(); ++i)
    if (taken[i]) chosen.push_back(cpus[i]);
  return chosen;
}

std::vector<int> fastest_allowed_cpus(int count) {
  const char* root = std::getenv("LITE_SYSFS_CPU_ROOT");
  return fastest_cpus(count, allowed_cpus(), root != nullptr && root[0] != '\0' ? root : kSysfsCpuRoot);
}

#if defined(__linux__)

namespace {

std::vector<int> cpus_of(const cpu_set_t& mask) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mask)) cpus.push_back(cpu);
  return cpus;
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  // Fails (EINVAL) on kernels configured for more than CPU_SETSIZE (1024) CPUs: nothing is pinned.
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return {};
  return cpus_of(mask);
}

bool set_current_thread_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return false;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int cpu : cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
    CPU_SET(cpu, &mask);
  }
  return sched_setaffinity(0, sizeof(mask), &mask) == 0;
}

ScopedThreadCpus::ScopedThreadCpus(const std::vector<int>& cpus) {
  if (cpus.empty() || sched_getaffinity(0, sizeof(saved_), &saved_) != 0) return;
  pinned_ = set_current_thread_cpus(cpus);
}

ScopedThreadCpus::~ScopedThreadCpus() {
  if (pinned_) sched_setaffinity(0, sizeof(saved_), &saved_);
}

#else

std::vector<int> allowed_cpus() { return {}; }
bool set_current_thread_cpus(const std::vector<int>&) { return false; }
ScopedThreadCpus::ScopedThreadCpus(const std::vector<int>&) {}
ScopedThreadCpus::~ScopedThreadCpus() {}

#endif

}  // namespace lite
