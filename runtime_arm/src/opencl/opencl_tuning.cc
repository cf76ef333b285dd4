#include "opencl/opencl_tuning.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "opencl/opencl_program_cache.h"

namespace lite {

namespace {

constexpr char kMagic[] = "lite-opencl-tuning 1";

bool parse_entry(const std::string& line, std::string* key, LocalSize* local) {
  std::istringstream in(line);
  long long x = -1, y = -1;
  if (!(in >> *key >> x >> y) || x < 0 || y < 0 || x > 4096 || y > 4096 || (x == 0) != (y == 0)) return false;
  std::string rest;
  if (in >> rest) return false;
  local->x = static_cast<size_t>(x);
  local->y = static_cast<size_t>(y);
  return true;
}

}  // namespace

const char* tune_level_name(TuneLevel level) {
  switch (level) {
    case TuneLevel::kFast: return "fast";
    case TuneLevel::kNormal: return "normal";
    case TuneLevel::kExhaustive: return "exhaustive";
    default: return "none";
  }
}

std::vector<LocalSize> local_size_candidates(TuneLevel level, size_t limit) {
  std::vector<LocalSize> out{LocalSize{}};  // the driver's own choice is always a candidate
  if (level == TuneLevel::kNone) return out;
  if (level == TuneLevel::kFast) {
    for (LocalSize s : {LocalSize{4, 4}, LocalSize{8, 8}, LocalSize{16, 4}, LocalSize{32, 2}})
      if (s.x * s.y <= limit) out.push_back(s);
    return out;
  }
  const size_t most = level == TuneLevel::kNormal && limit > 64 ? 64 : limit;
  for (size_t x = 1; x <= most; x *= 2)
    for (size_t y = 1; x * y <= most; y *= 2) out.push_back(LocalSize{x, y});
  return out;
}

void TuningCache::open(const std::string& cache_dir, const std::string& device_key) {
  device_key_ = device_key;
  if (cache_dir.empty()) return;
  char name[64];
  std::snprintf(name, sizeof(name), "/opencl-tune-%016llx.txt",
                static_cast<unsigned long long>(fnv1a64(device_key.data(), device_key.size())));
  path_ = cache_dir + name;
  std::ifstream in(path_);
  if (!in) return;  // none yet
  std::string line, key_line, key;
  std::map<std::string, LocalSize> read;
  bool ok = std::getline(in, line) && line == kMagic && std::getline(in, key_line) && key_line == device_line();
  while (ok && std::getline(in, line)) {
    LocalSize local;
    ok = parse_entry(line, &key, &local);
    if (ok) read[key] = local;
  }
  if (!ok) {
    note_ = "tuning cache " + path_ + " unreadable or foreign: ignored, tuned again";
    return;
  }
  entries_ = read;
  loaded_ = read.size();
}

std::string TuningCache::device_line() const {
  char line[40];
  std::snprintf(line, sizeof(line), "device %016llx",
                static_cast<unsigned long long>(fnv1a64(device_key_.data(), device_key_.size())));
  return line;
}

bool TuningCache::lookup(const std::string& key, LocalSize* out) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  *out = it->second;
  return true;
}

void TuningCache::store(const std::string& key, LocalSize local) {
  entries_[key] = local;
  if (path_.empty()) return;
  const std::string tmp = path_ + ".tmp." + std::to_string(static_cast<long>(getpid()));
  std::ofstream out(tmp, std::ios::trunc);
  out << kMagic << "\n" << device_line() << "\n";
  for (const auto& [k, v] : entries_) out << k << ' ' << v.x << ' ' << v.y << '\n';
  out.close();
  if (!out || std::rename(tmp.c_str(), path_.c_str()) != 0) {
    std::remove(tmp.c_str());
    note_ = "cannot write the tuning cache " + path_;
  }
}

}  // namespace lite
