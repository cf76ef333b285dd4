// Which OpOptions union member each op code reads (docs/OPS.md), so the verifier can refuse an op
// whose options belong to another op before the op reinterprets them.
#pragma once

#include "schema/lite_generated.h"

namespace lite {

// OpOptions::NONE when the op reads no options (then any attached options are ignored).
lite_fb::OpOptions expected_options(lite_fb::OpCode opcode);

}  // namespace lite
