#include "error_sink.h"

#include <cstdio>

namespace lite {

Status ErrorSink::set(Status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vset(status, fmt, args);
  va_end(args);
  return status;
}

Status ErrorSink::vset(Status status, const char* fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  char buffer[1024];
  int n = std::vsnprintf(buffer, sizeof(buffer), fmt, args);
  if (n >= 0 && static_cast<size_t>(n) >= sizeof(buffer)) {
    message_.assign(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(&message_[0], message_.size(), fmt, copy);
    message_.resize(static_cast<size_t>(n));
  } else {
    message_ = n >= 0 ? buffer : "(unformattable error message)";
  }
  va_end(copy);
  status_ = status;
  return status;
}

void ErrorSink::report(void* sink, const char* message) {
  ErrorSink* self = static_cast<ErrorSink*>(sink);
  self->message_ = message;
}

}  // namespace lite
