// Local-work-size tuning (issue 16): the work-group shape each kernel launch uses, chosen by timing
// candidates at an op's first run, and a persistent cache of the choices so a later start skips the
// timing (Paddle Lite and MNN users report tuning costs of seconds on phones).
//
// Levels: none (the driver picks: NULL local size, nothing timed), fast (a few shapes), normal (every
// power-of-two shape up to the kernel's work-group limit with at most 64 work items), exhaustive
// (every power-of-two shape up to the limit). The cache file, opencl-tune-<hash>.txt in the
// user's cache directory, starts with a magic line and the device key; a file that does not parse
// or belongs to another device is ignored and rewritten. Written to a temporary name and renamed.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lite {

enum class TuneLevel : int { kNone = 0, kFast = 1, kNormal = 2, kExhaustive = 3 };
const char* tune_level_name(TuneLevel level);

struct LocalSize {
  size_t x = 0, y = 0;  // 0: the driver's choice (a NULL local size)
};

// The candidate shapes of a level for a kernel whose work groups may hold `limit` items.
std::vector<LocalSize> local_size_candidates(TuneLevel level, size_t limit);

class TuningCache {
 public:
  // Reads the cache of `device_key` from `cache_dir` ("" for none); problems go to note().
  void open(const std::string& cache_dir, const std::string& device_key);
  bool lookup(const std::string& key, LocalSize* out) const;
  // Records a choice and rewrites the file (when there is a cache directory).
  void store(const std::string& key, LocalSize local);
  const std::string& note() const { return note_; }
  size_t loaded() const { return loaded_; }

 private:
  std::string device_line() const;  // the file's second line: a hash of the device key
  std::string path_, device_key_, note_;
  std::map<std::string, LocalSize> entries_;
  size_t loaded_ = 0;
};

}  // namespace lite
