/* CPU feature detection (see lite_kernels/cpu_features.h). Detection runs once per process
 * (pthread_once); the mask is an atomic so a test can change it between selections. */
#include "lite_kernels/cpu_features.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#elif defined(__linux__) && (defined(__aarch64__) || defined(__arm__))
#include <sys/auxv.h>
#endif

static uint32_t g_detected;
static _Atomic uint32_t g_mask = 0xFFFFFFFFu;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) || defined(__i386__)
static uint64_t read_xcr0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

static int amx_permitted(void) {
#if defined(__linux__) && defined(__x86_64__)
  enum { kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18 };
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return 0;
#endif
}

static uint32_t detect(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const int fma = (ecx >> 12) & 1, osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1;
  if (!osxsave || !avx) return 0;
  const uint64_t xcr0 = read_xcr0();
  const int ymm_state = (xcr0 & 0x6) == 0x6;            /* SSE + AVX state */
  const int zmm_state = ymm_state && (xcr0 & 0xE0) == 0xE0; /* opmask + ZMM_Hi256 + Hi16_ZMM */
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  uint32_t f = 0;
  const int avx2 = (ebx >> 5) & 1;
  if (avx2 && fma && ymm_state) f |= LITE_CPU_X86_AVX2;
  const int avx512f = (ebx >> 16) & 1, avx512dq = (ebx >> 17) & 1, avx512bw = (ebx >> 30) & 1,
            avx512vl = (ebx >> 31) & 1, vnni = (ecx >> 11) & 1;
  if ((f & LITE_CPU_X86_AVX2) && zmm_state && avx512f && avx512dq && avx512bw && avx512vl) {
    f |= LITE_CPU_X86_AVX512;
    if (vnni) f |= LITE_CPU_X86_AVX512VNNI;
  }
  /* AMX: tiles + int8 in CPUID, the tile state in XCR0, and Linux's permission for this process to use
   * the tile data state (asked once here: without it the first tile instruction faults). */
  const int amx_tile = (edx >> 24) & 1, amx_int8 = (edx >> 25) & 1;
  const int tile_state = (xcr0 & 0x60000) == 0x60000; /* XTILECFG + XTILEDATA */
  if ((f & LITE_CPU_X86_AVX512VNNI) && amx_tile && amx_int8 && tile_state && amx_permitted())
    f |= LITE_CPU_X86_AMX_INT8;
  return f;
}
#elif defined(__linux__) && defined(__aarch64__)
static uint32_t detect(void) {
  /* Bit positions of the Linux arm64 hwcap ABI (asm/hwcap.h). */
  const unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
  uint32_t f = 0;
  if (hw & (1ul << 1)) f |= LITE_CPU_ARM_NEON;                          /* HWCAP_ASIMD */
  if ((f & LITE_CPU_ARM_NEON) && (hw & (1ul << 20))) f |= LITE_CPU_ARM_DOTPROD; /* HWCAP_ASIMDDP */
  if ((f & LITE_CPU_ARM_NEON) && (hw2 & (1ul << 13))) f |= LITE_CPU_ARM_I8MM;   /* HWCAP2_I8MM */
  if ((f & LITE_CPU_ARM_NEON) && (hw & (1ul << 9)) && (hw & (1ul << 10))) f |= LITE_CPU_ARM_FP16; /* FPHP, ASIMDHP */
  return f;
}
#elif defined(__linux__) && defined(__arm__)
static uint32_t detect(void) {
  /* Bit positions of the Linux arm hwcap ABI (asm/hwcap.h): NEON 12, VFPv4 16. */
  const unsigned long hw = getauxval(AT_HWCAP);
  return ((hw & (1ul << 12)) && (hw & (1ul << 16))) ? LITE_CPU_ARM_NEON : 0;
}
#else
static uint32_t detect(void) { return 0; }
#endif

static void init_once(void) {
  g_detected = detect();
  const char* env = getenv("LITE_CPU_FEATURES_MASK");
  if (env != NULL && env[0] != '\0') {
    char* end = NULL;
    unsigned long v = strtoul(env, &end, 0);
    if (end != env) atomic_store(&g_mask, (uint32_t)v);
  }
}

uint32_t lite_cpu_features_detected(void) {
  pthread_once(&g_once, init_once);
  return g_detected;
}

uint32_t lite_cpu_features(void) { return lite_cpu_features_detected() & atomic_load(&g_mask); }

void lite_cpu_features_set_mask(uint32_t mask) {
  pthread_once(&g_once, init_once);
  atomic_store(&g_mask, mask);
}

const char* lite_cpu_features_describe(uint32_t features, char* buffer, uint32_t buffer_size) {
  static const struct {
    uint32_t bit;
    const char* name;
  } names[] = {{LITE_CPU_X86_AVX2, "avx2"},     {LITE_CPU_X86_AVX512, "avx512"},  {LITE_CPU_X86_AVX512VNNI, "avx512vnni"}, {LITE_CPU_X86_AMX_INT8, "amx-int8"},
               {LITE_CPU_ARM_NEON, "neon"},     {LITE_CPU_ARM_DOTPROD, "dotprod"}, {LITE_CPU_ARM_I8MM, "i8mm"},
               {LITE_CPU_ARM_FP16, "fp16"}};
  if (buffer_size == 0) return buffer;
  buffer[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (!(features & names[i].bit)) continue;
    int n = snprintf(buffer + used, buffer_size - used, "%s%s", used ? " " : "", names[i].name);
    if (n < 0 || (size_t)n >= buffer_size - used) break;
    used += (size_t)n;
  }
  return buffer;
}
