#!/bin/sh
# The AVX-512 fp32 GEMM kernels (f32_gemm_8x32_avx512.c: plain, panel, runs) against the reference, on a
# host without AVX-512: the kernel source is compiled over SIMDe's portable intrinsics (immintrin.h here),
# every other kernel as in the real build (never run: the harness claims AVX2 + AVX-512 F only, and the
# activation rows are the AVX2 ones). A run that does not report the AVX-512 variant fails.
# Usage: run.sh BUILD_DIR (make test-avx512-emulated)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kernels=$(cd "$here/../.." && pwd)
out=${1:?build dir}
rm -rf "$out/obj" && mkdir -p "$out/obj"  # always from the sources: headers change too
cflags="-O2 -std=gnu11 -w -I$kernels/include"
x86_512="-mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mfma -mf16c"
compile() { # source, extra flags
  obj="$out/obj/$(basename "$1" .c).o"
  ${CC:-cc} $cflags $2 -c "$1" -o "$obj"
}
for src in "$kernels"/ref/*.c "$kernels"/portable/*.c; do compile "$src" "" & done; wait
for src in "$kernels"/dispatch/*.c; do
  case $src in */cpu_features.c) extra="-Dlite_cpu_features=lite_cpu_features_host -Dlite_cpu_features_detected=lite_cpu_features_detected_host" ;; *) extra="" ;; esac
  compile "$src" "$extra" & done; wait
for src in "$kernels"/x86/*_avx2.c; do compile "$src" "-mavx2 -mfma -mf16c" & done; wait
for src in "$kernels"/x86/*_avx512.c; do
  case $src in
    */f32_gemm_8x32_avx512.c) compile "$src" "-I$here" ;;
    */f32_vactivation_avx512.c) compile "$src" "$x86_512 -Dlite_f32_vactivation_avx512=lite_f32_vactivation_avx512_native" ;;
    *) compile "$src" "$x86_512" ;;
  esac &
done; wait
for src in "$kernels"/x86/*_avx512vnni.c; do compile "$src" "$x86_512 -mavx512vnni" & done; wait
for src in "$kernels"/x86/*_avx512amx.c; do compile "$src" "$x86_512 -mavx512vnni -mamx-tile -mamx-int8" & done; wait
compile "$here/claim_avx512.c" ""
rm -f "$out/libkernels.a"
ar rcs "$out/libkernels.a" "$out"/obj/*.o
status=0
for test in test_f32_gemm_8x32_avx512 test_f32_gemm_runs_avx512; do
  ${CC:-cc} $cflags -I"$kernels/tests" "$kernels/tests/$test.c" "$out/libkernels.a" -lm -lpthread -o "$out/$test"
  log=$("$out/$test") || status=1
  printf '%s\n' "$log" | tail -n 1 | sed "s/^/$test (AVX-512 under SIMDe): /"
  printf '%s\n' "$log" | grep -q "^ran variant: f32_gemm_8x32_avx512" || { echo "$test: the AVX-512 variant did not run"; status=1; }
  printf '%s\n' "$log" | grep -q "^0 passed" && status=1
done
exit $status
