// Tiny op implementations registered only in the unit tests' own registry, so the core can be
// tested independently of the real ops: ADD (f32/i64, same shape or 1-element b), RESHAPE
// (aliases input 0, reads its shape input at prepare), SHAPE, REDUCE_PROD (i64 product -> [1]),
// EXP (uses scratch and op state), SIN (eval fails), TAN (prepare fails via fail()), COS (prepare
// fails silently).
#pragma once

#include "op_api.h"

namespace lite_test {

const lite::OpRegistry& test_ops();

// Number of eval calls per op code since the last reset (tests run single-threaded).
int eval_count(lite_fb::OpCode opcode);
void reset_eval_counts();
// Live op states (EXP allocates one per prepare): must return to zero after destruction.
int live_states();

}  // namespace lite_test
