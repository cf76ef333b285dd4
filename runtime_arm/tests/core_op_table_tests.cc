// Every op code of the schema reaches a kernel: the registration (ops/register_*.cc) is written by
// hand, so an op added to lite.fbs and lite_ops.py but not registered fails here rather than as
// "unsupported op" in a user's model (docs/ADDING_AN_OP.md).
#include "core_test_framework.h"
#include "op_api.h"

LITE_TEST(every_op_code_has_a_builtin_kernel) {
  for (lite_fb::OpCode code : lite_fb::EnumValuesOpCode()) {
#ifdef LITE_NO_SEQUENCES  // a build without the sequence ops (runtime_arm/CMakeLists.txt)
    if (code >= lite_fb::OpCode::SEQUENCE_CONSTRUCT && code <= lite_fb::OpCode::OPTIONAL_GET_ELEMENT) continue;
#endif
    CHECK_MSG(lite::builtin_ops().find(code) != nullptr, "%s has no registered kernel",
              lite_fb::EnumNameOpCode(code));
  }
}
