// The ops the OpenCL backend runs: the capability query (which op, dtypes and shapes it takes)
// and each op's prepare (weights packed into buffers, constants into images, kernel arguments
// set once) and eval (tensor images bound, one NDRange enqueued).
#pragma once

#include "op_api.h"

namespace lite {

class OpenClBackend;

// The kernel that runs this op on `backend`, or null (the op stays on the CPU).
const OpKernel* opencl_kernel_for(OpenClBackend* backend, const OpContext& ctx);

}  // namespace lite
