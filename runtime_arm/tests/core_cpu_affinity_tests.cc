// cpu_affinity: fastest_cpus over fake sysfs trees written to a temporary directory (big.LITTLE,
// DynamIQ, cpufreq only, alike CPUs, garbage files, a restricted allowed set), and pinning the
// calling thread on the real host then restoring its mask.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "core_test_framework.h"
#include "cpu_affinity.h"

using lite::fastest_cpus;

namespace {

// A directory laid out like /sys/devices/system/cpu, removed with everything written into it.
class FakeSysfs {
 public:
  FakeSysfs() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp") + "/lite_sysfs_XXXXXX";
    if (mkdtemp(&pattern[0]) != nullptr) root_ = pattern;
  }
  ~FakeSysfs() {
    for (size_t i = made_.size(); i > 0; --i) std::remove(made_[i - 1].c_str());
    if (!root_.empty()) rmdir(root_.c_str());
  }
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;

  bool ok() const { return !root_.empty(); }
  const char* root() const { return root_.c_str(); }

  // Writes <root>/cpu<cpu>/<name> (name may be "cpufreq/cpuinfo_max_freq"), creating directories.
  bool write(int cpu, const std::string& name, const std::string& text) {
    std::string path = root_ + "/cpu" + std::to_string(cpu);
    if (!make_dir(path)) return false;
    const size_t slash = name.find('/');
    if (slash != std::string::npos && !make_dir(path + "/" + name.substr(0, slash))) return false;
    path += "/" + name;
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) return false;
    const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    if (std::fclose(file) != 0 || !written) return false;
    remember(path);
    return true;
  }

  // cpu i gets values[i] followed by a newline, as the kernel writes it.
  bool write_all(const std::string& name, const std::vector<long long>& values) {
    for (size_t cpu = 0; cpu < values.size(); ++cpu)
      if (!write(static_cast<int>(cpu), name, std::to_string(values[cpu]) + "\n")) return false;
    return true;
  }

 private:
  bool make_dir(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
    if (mkdir(path.c_str(), 0700) != 0) return false;
    made_.push_back(path);
    return true;
  }
  void remember(const std::string& path) {
    for (const std::string& p : made_)
      if (p == path) return;
    made_.push_back(path);
  }

  std::string root_;
  std::vector<std::string> made_;  // in creation order: removed in reverse
};

constexpr const char* kCapacity = "cpu_capacity";
constexpr const char* kMaxFreq = "cpufreq/cpuinfo_max_freq";

std::vector<int> range(int n) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < n; ++cpu) cpus.push_back(cpu);
  return cpus;
}

std::string text(const std::vector<int>& cpus) {
  std::string out = "{";
  for (size_t i = 0; i < cpus.size(); ++i) out += (i > 0 ? "," : "") + std::to_string(cpus[i]);
  return out + "}";
}

#define CHECK_CPUS(got, ...)                                                          \
  do {                                                                                \
    const std::vector<int> got_ = (got);                                              \
    const std::vector<int> want_ = __VA_ARGS__;                                       \
    CHECK_MSG(got_ == want_, "%s: got %s, want %s", #got, text(got_).c_str(), text(want_).c_str()); \
  } while (0)

}  // namespace

// A 4+4 phone (e.g. Cortex-A55 x4 + A76 x4): the big cores first, then the little ones by number.
LITE_TEST(cpu_affinity_big_little_capacities_pick_big_cores_first) {
  FakeSysfs sys;
  CHECK(sys.ok());
  CHECK(sys.write_all(kCapacity, {381, 381, 381, 381, 1024, 1024, 1024, 1024}));
  CHECK(sys.write_all(kMaxFreq, {1800000, 1800000, 1800000, 1800000, 2400000, 2400000, 2400000, 2400000}));
  CHECK_CPUS(fastest_cpus(1, range(8), sys.root()), {4});
  CHECK_CPUS(fastest_cpus(2, range(8), sys.root()), {4, 5});
  CHECK_CPUS(fastest_cpus(4, range(8), sys.root()), {4, 5, 6, 7});
  CHECK_CPUS(fastest_cpus(6, range(8), sys.root()), {0, 1, 4, 5, 6, 7});
  // Every allowed CPU, or no count: pinning would change nothing.
  CHECK_CPUS(fastest_cpus(8, range(8), sys.root()), {});
  CHECK_CPUS(fastest_cpus(12, range(8), sys.root()), {});
  CHECK_CPUS(fastest_cpus(0, range(8), sys.root()), {});
  CHECK_CPUS(fastest_cpus(-1, range(8), sys.root()), {});
}

// DynamIQ 1+3+4 (e.g. Snapdragon 8 Gen 1: X2 + A710 x3 + A510 x4): three tiers ranked by capacity,
// not by number (the fast tier is written first here).
LITE_TEST(cpu_affinity_dynamiq_three_tiers_rank_by_capacity) {
  FakeSysfs sys;
  CHECK(sys.ok());
  CHECK(sys.write_all(kCapacity, {1024, 870, 870, 870, 325, 325, 325, 325}));
  CHECK_CPUS(fastest_cpus(1, range(8), sys.root()), {0});
  CHECK_CPUS(fastest_cpus(2, range(8), sys.root()), {0, 1});
  CHECK_CPUS(fastest_cpus(4, range(8), sys.root()), {0, 1, 2, 3});
  CHECK_CPUS(fastest_cpus(5, range(8), sys.root()), {0, 1, 2, 3, 4});

  FakeSysfs usual;  // the usual numbering: little cores first, the prime core last
  CHECK(usual.ok());
  CHECK(usual.write_all(kCapacity, {325, 325, 325, 325, 870, 870, 870, 1024}));
  CHECK_CPUS(fastest_cpus(1, range(8), usual.root()), {7});
  CHECK_CPUS(fastest_cpus(2, range(8), usual.root()), {4, 7});
  CHECK_CPUS(fastest_cpus(3, range(8), usual.root()), {4, 5, 7});
  CHECK_CPUS(fastest_cpus(5, range(8), usual.root()), {0, 4, 5, 6, 7});
}

// Without cpu_capacity (older or non-ARM kernels) the maximum frequency ranks; one CPU without a
// capacity is enough to rank all of them by frequency.
LITE_TEST(cpu_affinity_falls_back_to_cpufreq_when_a_capacity_is_missing) {
  FakeSysfs freq_only;
  CHECK(freq_only.ok());
  CHECK(freq_only.write_all(kMaxFreq, {2400000, 2400000, 1800000, 1800000, 1800000, 1800000}));
  CHECK_CPUS(fastest_cpus(2, range(6), freq_only.root()), {0, 1});
  CHECK_CPUS(fastest_cpus(3, range(6), freq_only.root()), {0, 1, 2});

  FakeSysfs partial;  // capacities say cpu0, frequencies say cpu3; cpu3 has no capacity
  CHECK(partial.ok());
  CHECK(partial.write_all(kCapacity, {1024, 100, 100}));
  CHECK(partial.write_all(kMaxFreq, {1000000, 1000000, 1000000, 3000000}));
  CHECK_CPUS(fastest_cpus(1, range(4), partial.root()), {3});
  CHECK_CPUS(fastest_cpus(1, range(3), partial.root()), {0});  // cpu3 not allowed: capacities rank
}

LITE_TEST(cpu_affinity_alike_or_undescribed_cpus_choose_nothing) {
  FakeSysfs alike;
  CHECK(alike.ok());
  CHECK(alike.write_all(kCapacity, {1024, 1024, 1024, 1024}));
  CHECK(alike.write_all(kMaxFreq, {2000000, 2000000, 3000000, 2000000}));  // capacity wins: alike
  CHECK_CPUS(fastest_cpus(1, range(4), alike.root()), {});
  CHECK_CPUS(fastest_cpus(2, range(4), alike.root()), {});

  FakeSysfs alike_freq;
  CHECK(alike_freq.ok());
  CHECK(alike_freq.write_all(kMaxFreq, {2000000, 2000000}));
  CHECK_CPUS(fastest_cpus(1, range(2), alike_freq.root()), {});

  FakeSysfs empty;  // the directory exists, no CPU is described
  CHECK(empty.ok());
  CHECK_CPUS(fastest_cpus(1, range(4), empty.root()), {});
  CHECK_CPUS(fastest_cpus(1, range(4), "/nonexistent/sysfs/cpu"), {});
  CHECK_CPUS(fastest_cpus(1, range(4), nullptr), {});

  FakeSysfs big_little;  // an allowed CPU the tree does not describe: the ranking says nothing
  CHECK(big_little.ok());
  CHECK(big_little.write_all(kCapacity, {381, 381, 1024, 1024}));
  CHECK_CPUS(fastest_cpus(1, range(4), big_little.root()), {2});
  CHECK_CPUS(fastest_cpus(1, range(5), big_little.root()), {});
}

// A file that is not one positive decimal number (and a newline) counts as missing: the ranking
// falls back to the frequencies, which here pick other CPUs than the capacities do.
LITE_TEST(cpu_affinity_garbage_in_a_file_counts_as_missing) {
  const char* garbage[] = {"", "\n", "abc\n", "12abc\n", "-5\n", "0\n", " 1024\n", "1024\n\n", "10 24\n",
                           "99999999999999999999999999\n", "1024.5\n", "0x400\n",
                           "1024                                                   \n"};
  for (const char* bad : garbage) {
    FakeSysfs sys;
    CHECK(sys.ok());
    CHECK(sys.write_all(kCapacity, {400, 400, 400, 400, 1024, 1024, 1024, 1024}));
    CHECK(sys.write_all(kMaxFreq, {1800000, 1800000, 1800000, 1800000, 2400000, 2400000, 3000000, 3000000}));
    CHECK_CPUS(fastest_cpus(2, range(8), sys.root()), {4, 5});
    CHECK(sys.write(5, kCapacity, bad));
    CHECK_MSG(fastest_cpus(2, range(8), sys.root()) == std::vector<int>({6, 7}), "capacity '%s'", bad);
    CHECK(sys.write(6, kMaxFreq, bad));  // now neither file ranks every CPU
    CHECK_MSG(fastest_cpus(2, range(8), sys.root()).empty(), "capacity and max_freq '%s'", bad);
  }
  FakeSysfs valid;  // the accepted forms: with and without the trailing newline
  CHECK(valid.ok());
  CHECK(valid.write(0, kCapacity, "512"));
  CHECK(valid.write(1, kCapacity, "1024\n"));
  CHECK_CPUS(fastest_cpus(1, range(2), valid.root()), {1});
}

// Only allowed CPUs are ranked (a process restricted by taskset or a cpuset); their order and
// duplicates do not matter.
LITE_TEST(cpu_affinity_ranks_only_the_allowed_cpus) {
  FakeSysfs sys;
  CHECK(sys.ok());
  CHECK(sys.write_all(kCapacity, {381, 381, 381, 381, 1024, 1024, 1024, 1024}));
  CHECK_CPUS(fastest_cpus(2, {0, 1, 2, 3, 5, 7}, sys.root()), {5, 7});
  CHECK_CPUS(fastest_cpus(3, {0, 1, 2, 3, 5, 7}, sys.root()), {0, 5, 7});
  CHECK_CPUS(fastest_cpus(1, {7, 5, 5, 0}, sys.root()), {5});
  CHECK_CPUS(fastest_cpus(2, {7, 5, 5, 0}, sys.root()), {5, 7});
  CHECK_CPUS(fastest_cpus(1, {1, 6}, sys.root()), {6});
  CHECK_CPUS(fastest_cpus(2, {0, 1, 2, 3}, sys.root()), {});  // only little cores: alike
  CHECK_CPUS(fastest_cpus(1, {}, sys.root()), {});
  CHECK_CPUS(fastest_cpus(1, {-1, 4}, sys.root()), {});  // -1 is no CPU: {4} alone is every CPU
}

#if defined(__linux__)

// On this host: pin the calling thread to one CPU, then restore. On a thread of its own, so a
// failure cannot leave the test process pinned.
LITE_TEST(cpu_affinity_pin_and_restore_round_trip_on_the_host) {
  std::vector<int> original, during, after, after_bad;
  bool set = false, bad_refused = true, scoped_pinned = false;
  std::thread([&]() {
    original = lite::allowed_cpus();
    if (original.empty()) return;
    {
      const lite::ScopedThreadCpus pin({original.front()});
      scoped_pinned = pin.pinned();
      during = lite::allowed_cpus();
    }
    after = lite::allowed_cpus();
    set = lite::set_current_thread_cpus({original.back()});
    const std::vector<int> now = lite::allowed_cpus();
    if (!lite::set_current_thread_cpus(original)) set = false;
    if (now != std::vector<int>({original.back()})) set = false;
    // Refused without touching the mask: empty, negative, beyond CPU_SETSIZE.
    for (const std::vector<int>& bad : {std::vector<int>(), std::vector<int>({-1}), std::vector<int>({1 << 20})})
      if (lite::set_current_thread_cpus(bad)) bad_refused = false;
    after_bad = lite::allowed_cpus();
  }).join();
  CHECK_MSG(!original.empty(), "sched_getaffinity gave no CPUs");
  if (original.size() < 2) std::printf("  note: one CPU allowed (%s): no mask changes here\n", text(original).c_str());
  CHECK(scoped_pinned);
  CHECK_CPUS(during, {original.front()});
  CHECK_CPUS(after, original);
  CHECK(set);
  CHECK(bad_refused);
  CHECK_CPUS(after_bad, original);
  // Nothing to pin: nothing changes, nothing is restored.
  const lite::ScopedThreadCpus none({});
  CHECK(!none.pinned());
}

#endif
