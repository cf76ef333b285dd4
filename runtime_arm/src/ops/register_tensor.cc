// Registers the tensor op group (see docs/OPS.md). Filled in by the op implementations' owner.
#include "op_api.h"

namespace lite {

void register_tensor_ops(OpRegistry& registry) { (void)registry; }

}  // namespace lite
