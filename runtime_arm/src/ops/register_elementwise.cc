// Registers the elementwise op group (see docs/OPS.md). Filled in by the op implementations' owner.
#include "op_api.h"

namespace lite {

void register_elementwise_ops(OpRegistry& registry) { (void)registry; }

}  // namespace lite
