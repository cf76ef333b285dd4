// The semantic verifier: everything the interpreter relies on that a flatbuffer Verifier cannot
// know (indices in range, constant sizes, topological order, supported ops). It runs once at load,
// so the interpreter can index without checks.
#pragma once

#include "error_sink.h"
#include "op_api.h"

namespace lite {

// `model` must already have passed the flatbuffers Verifier.
Status verify_model_semantics(const lite_fb::Model& model, const OpRegistry& registry, ErrorSink* error);

}  // namespace lite
