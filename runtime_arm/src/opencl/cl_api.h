// The part of the OpenCL 1.2 C API the backend calls, declared from the Khronos specification's
// published types and enum values, so the runtime builds without OpenCL headers and links no
// libOpenCL: the entry points are looked up with dlsym at run time (cl_library.h). Only what the
// backend uses is here; names follow the specification so the code reads like any OpenCL program.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lite {
namespace cl {

using cl_int = int32_t;
using cl_uint = uint32_t;
using cl_ulong = uint64_t;
using cl_bool = cl_uint;
using cl_bitfield = cl_ulong;
using cl_device_type = cl_bitfield;
using cl_platform_info = cl_uint;
using cl_device_info = cl_uint;
using cl_command_queue_properties = cl_bitfield;
using cl_context_properties = intptr_t;
using cl_mem_flags = cl_bitfield;
using cl_mem_object_type = cl_uint;
using cl_channel_order = cl_uint;
using cl_channel_type = cl_uint;
using cl_program_info = cl_uint;
using cl_program_build_info = cl_uint;
using cl_kernel_work_group_info = cl_uint;
using cl_profiling_info = cl_uint;

using cl_platform_id = struct _cl_platform_id*;
using cl_device_id = struct _cl_device_id*;
using cl_context = struct _cl_context*;
using cl_command_queue = struct _cl_command_queue*;
using cl_mem = struct _cl_mem*;
using cl_program = struct _cl_program*;
using cl_kernel = struct _cl_kernel*;
using cl_event = struct _cl_event*;

struct cl_image_format {
  cl_channel_order image_channel_order;
  cl_channel_type image_channel_data_type;
};

struct cl_image_desc {
  cl_mem_object_type image_type;
  size_t image_width;
  size_t image_height;
  size_t image_depth;
  size_t image_array_size;
  size_t image_row_pitch;
  size_t image_slice_pitch;
  cl_uint num_mip_levels;
  cl_uint num_samples;
  cl_mem buffer;
};

constexpr cl_int CL_SUCCESS = 0;
constexpr cl_int CL_DEVICE_NOT_FOUND = -1;
constexpr cl_int CL_BUILD_PROGRAM_FAILURE = -11;
constexpr cl_int CL_INVALID_BINARY = -42;
constexpr cl_int CL_INVALID_WORK_GROUP_SIZE = -54;
constexpr cl_int CL_PLATFORM_NOT_FOUND_KHR = -1001;
constexpr cl_bool CL_FALSE = 0;
constexpr cl_bool CL_TRUE = 1;

constexpr cl_device_type CL_DEVICE_TYPE_DEFAULT = 1u << 0;
constexpr cl_device_type CL_DEVICE_TYPE_CPU = 1u << 1;
constexpr cl_device_type CL_DEVICE_TYPE_GPU = 1u << 2;
constexpr cl_device_type CL_DEVICE_TYPE_ALL = 0xFFFFFFFFu;

constexpr cl_platform_info CL_PLATFORM_VERSION = 0x0901;
constexpr cl_platform_info CL_PLATFORM_NAME = 0x0902;
constexpr cl_platform_info CL_PLATFORM_VENDOR = 0x0903;

constexpr cl_device_info CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004;
constexpr cl_device_info CL_DEVICE_IMAGE2D_MAX_WIDTH = 0x1011;
constexpr cl_device_info CL_DEVICE_IMAGE2D_MAX_HEIGHT = 0x1012;
constexpr cl_device_info CL_DEVICE_IMAGE_SUPPORT = 0x1016;
constexpr cl_device_info CL_DEVICE_NAME = 0x102B;
constexpr cl_device_info CL_DEVICE_VENDOR = 0x102C;
constexpr cl_device_info CL_DRIVER_VERSION = 0x102D;
constexpr cl_device_info CL_DEVICE_VERSION = 0x102F;
constexpr cl_device_info CL_DEVICE_EXTENSIONS = 0x1030;
constexpr cl_device_info CL_DEVICE_PLATFORM = 0x1031;

constexpr cl_command_queue_properties CL_QUEUE_PROFILING_ENABLE = 1u << 1;
constexpr cl_context_properties CL_CONTEXT_PLATFORM = 0x1084;

constexpr cl_mem_flags CL_MEM_READ_WRITE = 1u << 0;
constexpr cl_mem_flags CL_MEM_READ_ONLY = 1u << 2;
constexpr cl_mem_flags CL_MEM_COPY_HOST_PTR = 1u << 5;

constexpr cl_channel_order CL_RGBA = 0x10B5;
constexpr cl_channel_type CL_HALF_FLOAT = 0x10DD;
constexpr cl_channel_type CL_FLOAT = 0x10DE;
constexpr cl_mem_object_type CL_MEM_OBJECT_IMAGE2D = 0x10F1;

constexpr cl_program_info CL_PROGRAM_BINARY_SIZES = 0x1165;
constexpr cl_program_info CL_PROGRAM_BINARIES = 0x1166;
constexpr cl_program_build_info CL_PROGRAM_BUILD_LOG = 0x1183;
constexpr cl_kernel_work_group_info CL_KERNEL_WORK_GROUP_SIZE = 0x11B0;
constexpr cl_profiling_info CL_PROFILING_COMMAND_START = 0x1282;
constexpr cl_profiling_info CL_PROFILING_COMMAND_END = 0x1283;

// The entry points, filled by cl_library.cc. On Linux and Android CL_API_CALL is the platform's
// default calling convention, so plain function pointer types match.
struct Api {
  cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id*, cl_uint*);
  cl_int (*GetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void*, size_t*);
  cl_int (*GetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id*, cl_uint*);
  cl_int (*GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void*, size_t*);
  cl_context (*CreateContext)(const cl_context_properties*, cl_uint, const cl_device_id*,
                              void (*)(const char*, const void*, size_t, void*), void*, cl_int*);
  cl_int (*ReleaseContext)(cl_context);
  cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties, cl_int*);
  cl_int (*ReleaseCommandQueue)(cl_command_queue);
  cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char**, const size_t*, cl_int*);
  cl_program (*CreateProgramWithBinary)(cl_context, cl_uint, const cl_device_id*, const size_t*,
                                        const unsigned char**, cl_int*, cl_int*);
  cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id*, const char*, void (*)(cl_program, void*), void*);
  cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_program_build_info, size_t, void*, size_t*);
  cl_int (*GetProgramInfo)(cl_program, cl_program_info, size_t, void*, size_t*);
  cl_int (*ReleaseProgram)(cl_program);
  cl_kernel (*CreateKernel)(cl_program, const char*, cl_int*);
  cl_int (*ReleaseKernel)(cl_kernel);
  cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void*);
  cl_int (*GetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void*, size_t*);
  cl_mem (*CreateBuffer)(cl_context, cl_mem_flags, size_t, void*, cl_int*);
  cl_mem (*CreateImage)(cl_context, cl_mem_flags, const cl_image_format*, const cl_image_desc*, void*, cl_int*);
  cl_int (*ReleaseMemObject)(cl_mem);
  cl_int (*EnqueueWriteImage)(cl_command_queue, cl_mem, cl_bool, const size_t*, const size_t*, size_t, size_t,
                              const void*, cl_uint, const cl_event*, cl_event*);
  cl_int (*EnqueueReadImage)(cl_command_queue, cl_mem, cl_bool, const size_t*, const size_t*, size_t, size_t, void*,
                             cl_uint, const cl_event*, cl_event*);
  cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*,
                                 cl_uint, const cl_event*, cl_event*);
  cl_int (*Finish)(cl_command_queue);
  cl_int (*GetEventProfilingInfo)(cl_event, cl_profiling_info, size_t, void*, size_t*);
  cl_int (*ReleaseEvent)(cl_event);
};

}  // namespace cl
}  // namespace lite
