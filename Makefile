# Quick start: `make demo` (convert + run the PaddleOCR mobile models) and `make test`.
# Both install what is missing: Debian packages with apt-get, Python packages into .venv/.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JOBS ?= $(shell nproc)

APT_PACKAGES := build-essential libflatbuffers-dev flatbuffers-compiler \
	qemu-user gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf \
	fonts-dejavu-core
NATIVE_SOURCES := $(shell find runtime_arm kernels_neon \( -name '*.c' -o -name '*.cc' -o -name '*.h' \
	-o -name 'CMakeLists.txt' -o -name '*.fbs' -o -name '*.cmake' \) 2>/dev/null) CMakeLists.txt pyproject.toml

SYSTEM_STAMP := build/.system-deps
DEPS_STAMP := $(VENV)/.deps
PACKAGE_STAMP := $(VENV)/.package
ASAN_DIR := build/asan

.PHONY: help demo test install asan schema lint clean bench bench-deps fuzz fuzz-build fuzz-ci tsan

help:
	@echo "make demo    convert and run the PaddleOCR mobile models, compare with onnxruntime"
	@echo "make test    the full test suite (installs what is missing)"
	@echo "make install .venv with the package (editable) and its dev tools"
	@echo "make asan    the runtime, C tests and fuzz harness under ASan/UBSan in $(ASAN_DIR)"
	@echo "make schema  regenerate the flatbuffers code from runtime_arm/schema/lite.fbs"
	@echo "make cross   runtime, kernel tests, run_model, lite_bench for aarch64 and armv7 (build/aarch64, build/armv7)"
	@echo "make qemu-plugin  the qemu instruction-count plugin ($(QEMU_PLUGIN))"
	@echo "make bench   benchmarks/RESULTS.md: our runtime against onnxruntime, LiteRT, ncnn, MNN"
	@echo "make fuzz    libFuzzer over the C API and the converter's readers, FUZZ_SECONDS each (docs/RELIABILITY.md)"
	@echo "make tsan    the runtime and its concurrency test under ThreadSanitizer in $(TSAN_DIR)"

$(SYSTEM_STAMP):
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

$(PACKAGE_STAMP): $(DEPS_STAMP) $(NATIVE_SOURCES)
	$(PY) -m pip install -q --no-build-isolation -e ".[dev]"
	@touch $@

install: $(PACKAGE_STAMP)

asan: $(DEPS_STAMP) $(NATIVE_SOURCES)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLITE_SANITIZE=ON >/dev/null
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(ASAN_DIR) -j $(JOBS)

demo: $(PACKAGE_STAMP)
	$(PY) -m lite_converter.app.demo

lint: $(PACKAGE_STAMP)
	$(VENV)/bin/ruff check $(wildcard lite_converter slim runtime_arm tests benchmarks)

# The Python tests that drive the runtime run a second time against the ASan/UBSan build of the
# library (the binding loads LITE_RUNTIME_LIBRARY; the sanitizer runtimes are preloaded into Python,
# whose own allocations are not leak-checked; --capture=sys leaves a sanitizer report on stderr): ~90 s.
# The slow accuracy, slim and qemu tests are left out.
ASAN_RUNTIME_TESTS := $(addprefix tests/,test_ops_nn.py test_ops_tensor.py test_ops_elementwise.py \
	test_ops_channel_blocks.py test_ops_conv_transpose_dot.py test_ops_conv_transpose_gemm.py test_real_models.py \
	test_threads.py test_conv_pointwise_depthwise.py test_conv_weight_heavy.py test_conv_im2col_runs.py \
	test_slim_int8_ops.py test_int8_kernels.py test_int8_stem.py test_int8_conv_transpose.py \
	test_int8_elementwise_threads.py test_int8_input_transpose.py test_compose_tables_int8.py test_import_int8.py \
	test_hostile_models.py test_runtime_binding.py test_profiling.py test_cpu_affinity.py \
	test_onnx_node_conformance.py test_layout_nhwc.py)

# Paddle inference is the oracle of the Paddle frontend tests (never a dependency of the converter).
PADDLE_STAMP := $(VENV)/.paddle-deps

$(PADDLE_STAMP): pyproject.toml | $(PACKAGE_STAMP)
	$(PY) -m pip install -q $$($(PY) -c "import tomllib; \
	  print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['paddle-tests']))")
	@touch $@

test: $(PACKAGE_STAMP) $(PADDLE_STAMP) asan lint cross qemu-plugin
	LITE_ASAN_BUILD=$(CURDIR)/$(ASAN_DIR) $(PY) -m pytest -q
	LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  ASAN_OPTIONS=detect_leaks=0 LITE_RUNTIME_LIBRARY=$(CURDIR)/$(ASAN_DIR)/runtime_arm/liblite_runtime.so \
	  $(PY) -m pytest -q -p no:cacheprovider --capture=sys $(ASAN_RUNTIME_TESTS)

schema:
	runtime_arm/schema/generate.sh

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

bench: $(PACKAGE_STAMP) $(BENCH_STAMP)
	$(PY) benchmarks/run_benchmarks.py

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
FUZZ_FLAGS := -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20 -print_final_stats=1 -close_fd_mask=1
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

# What CI runs (make test): each target briefly.
fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=30 FUZZ_READER_SECONDS=15

# ThreadSanitizer: the runtime and tests/test_tsan.py's concurrency driver (gcc, -fsanitize=thread).
tsan: $(DEPS_STAMP) $(NATIVE_SOURCES)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DLITE_TSAN=ON >/dev/null
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cmake --build $(TSAN_DIR) -j $(JOBS) --target concurrent_interpreters
