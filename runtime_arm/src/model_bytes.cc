#include "model_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace lite {

namespace {

// flatbuffers cannot address more than 2 GiB - 1.
constexpr size_t kMaxModelBytes = 0x7fffffffu;

}  // namespace

ModelBytes::~ModelBytes() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
}

Status ModelBytes::map_file(const char* path, ErrorSink* error) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the regular
  // file check below then refuses it (and devices, directories, sockets).
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return error->set(Status::kIoError, "cannot open '%s': %s", path, std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return error->set(Status::kIoError, "cannot stat '%s': %s", path, std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return error->set(Status::kIoError, "'%s' is not a regular file", path);
  }
  if (st.st_size <= 0 || static_cast<uint64_t>(st.st_size) > kMaxModelBytes) {
    close(fd);
    return error->set(Status::kInvalidModel, "'%s' has %lld bytes: a .lite file has 1 byte to 2 GiB", path,
                      static_cast<long long>(st.st_size));
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);  // the mapping keeps the file alive
  if (p == MAP_FAILED) return error->set(Status::kIoError, "cannot mmap '%s': %s", path, std::strerror(e));
  mapping_ = p;
  mapping_size_ = size;
  data_ = static_cast<const uint8_t*>(p);
  size_ = size;
  return Status::kOk;
}

Status ModelBytes::copy_from(const void* data, size_t size, ErrorSink* error) {
  if (size > kMaxModelBytes)
    return error->set(Status::kInvalidModel, "model of %zu bytes: a .lite model has at most 2 GiB", size);
  if (!copy_.allocate(size, false))
    return error->set(Status::kOutOfMemory, "cannot allocate %zu bytes for the model copy", size);
  std::memcpy(copy_.data(), data, size);
  data_ = static_cast<const uint8_t*>(copy_.data());
  size_ = size;
  return Status::kOk;
}

void ModelBytes::borrow(const void* data, size_t size) {
  data_ = static_cast<const uint8_t*>(data);
  size_ = size;
}

}  // namespace lite
