// Where the core and the ops write error messages: one per interpreter (and one per model load),
// so that concurrent interpreters never share mutable state.
#pragma once

#include <cstdarg>
#include <string>

#include "op_api.h"

namespace lite {

class ErrorSink {
 public:
  // Replaces the message; returns `status` so call sites can `return sink.set(...)`.
  Status set(Status status, const char* fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 3, 4)))
#endif
      ;
  Status vset(Status status, const char* fmt, va_list args);
  // Prepends "prefix" to the current message (used to add op and node names).
  void prefix(const std::string& prefix) { message_ = prefix + message_; }
  void clear() {
    message_.clear();
    status_ = Status::kOk;
  }

  const std::string& message() const { return message_; }
  Status status() const { return status_; }

  // OpContext::report adapter: `sink` is an ErrorSink*.
  static void report(void* sink, const char* message);

 private:
  std::string message_;
  Status status_ = Status::kOk;
};

}  // namespace lite
