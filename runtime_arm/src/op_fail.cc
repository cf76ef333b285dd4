// fail(): how an op reports an error with its op code and node name (op_api.h).
#include <cstdarg>
#include <cstdio>

#include "memory_budget.h"
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

void* op_allocate(OpContext* ctx, size_t bytes, const char* what) {
  MemoryBudget unbounded;  // ops prepared outside an interpreter (unit tests) have no budget
  unbounded.set_limit(static_cast<size_t>(-1));
  MemoryBudget* budget = ctx->memory != nullptr ? ctx->memory : &unbounded;
  bool over_limit = false;
  void* p = budget->allocate(bytes, &over_limit);
  if (p != nullptr) return p;
  if (over_limit) {
    fail(ctx, Status::kOutOfMemory,
         "%s needs %zu bytes, over max_memory_bytes (%zu, of which %zu already committed); raise "
         "lite_interpreter_options.max_memory_bytes if the model is trusted",
         what, bytes, budget->limit(), budget->used());
  } else {
    fail(ctx, Status::kOutOfMemory, "%s: cannot allocate %zu bytes", what, bytes);
  }
  return nullptr;
}

}  // namespace lite
