// fail(): how an op reports an error with its op code and node name (op_api.h).
#include <cstdarg>
#include <cstdio>

#include "op_api.h"

namespace lite {

Status fail(OpContext* ctx, Status status, const char* fmt, ...) {
  if (ctx == nullptr || ctx->report == nullptr) return status;
  char detail[768];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(detail, sizeof(detail), fmt, args);
  va_end(args);
  const char* op_name = "?";
  const char* node_name = "";
  if (ctx->op != nullptr) {
    op_name = opcode_name(ctx->op->opcode());
    if (ctx->op->name() != nullptr) node_name = ctx->op->name()->c_str();
  }
  char message[1024];
  std::snprintf(message, sizeof(message), "%s '%s': %s", op_name, node_name, detail);
  ctx->report(ctx->error_sink, message);
  return status;
}

}  // namespace lite
