// Sizes and printable names of the schema's enums (op_api.h).
#include "op_api.h"

namespace lite {

size_t dtype_size(lite_fb::DType dtype) {
  switch (dtype) {
    case lite_fb::DType::FLOAT32: return 4;
    case lite_fb::DType::FLOAT16: return 2;
    case lite_fb::DType::FLOAT64: return 8;
    case lite_fb::DType::INT8: return 1;
    case lite_fb::DType::UINT8: return 1;
    case lite_fb::DType::INT16: return 2;
    case lite_fb::DType::INT32: return 4;
    case lite_fb::DType::INT64: return 8;
    case lite_fb::DType::BOOL: return 1;
    case lite_fb::DType::UINT16: return 2;
    case lite_fb::DType::UINT32: return 4;
    case lite_fb::DType::UINT64: return 8;
  }
  return 0;
}

const char* dtype_name(lite_fb::DType dtype) {
  const char* name = lite_fb::EnumNameDType(dtype);
  return name[0] != '\0' ? name : "UNKNOWN_DTYPE";
}

const char* opcode_name(lite_fb::OpCode opcode) {
  const char* name = lite_fb::EnumNameOpCode(opcode);
  return name != nullptr && name[0] != '\0' ? name : "UNKNOWN_OPCODE";
}

}  // namespace lite
