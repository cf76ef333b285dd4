#!/usr/bin/env bash
# Regenerates (`make schema`, or from the repository root: runtime_arm/schema/generate.sh) everything
# derived from runtime_arm/schema/lite.fbs and lite_converter/lite_ops.py:
#   lite_converter/lite_fb/            flatc's Python readers/writers
#   runtime_arm/src/schema/lite_generated.h   flatc's C++ header
#   runtime_arm/src/op_options_table.cc       lite_converter/op_table_codegen.py (the options table)
# With --check it writes nothing and fails, naming the files, when any of them is stale
# (tests/test_op_table.py runs it).
# flatc's Python output imports its siblings by absolute namespace ("from lite_fb.X import X");
# the package lives inside lite_converter/, so those imports are rewritten to the package path.
set -euo pipefail
cd "$(dirname "$0")/../.."
check=0
if [ "${1:-}" = "--check" ]; then check=1; elif [ $# -gt 0 ]; then echo "usage: $0 [--check]" >&2; exit 2; fi
command -v flatc >/dev/null || { echo "flatc not found: apt-get install flatbuffers-compiler" >&2; exit 1; }
python=${PYTHON:-$(command -v .venv/bin/python || command -v python3)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flatc --python -o "$tmp/py" runtime_arm/schema/lite.fbs
flatc --cpp --scoped-enums -o "$tmp/cpp" runtime_arm/schema/lite.fbs
mkdir -p "$tmp/out/lite_converter/lite_fb" "$tmp/out/runtime_arm/src/schema"
for f in "$tmp"/py/lite_fb/*.py; do
  sed -e 's/^\(\s*\)from lite_fb\./\1from lite_converter.lite_fb./' \
      -e 's/^\(\s*\)import lite_fb\./\1import lite_converter.lite_fb./' "$f" > "$tmp/out/lite_converter/lite_fb/$(basename "$f")"
done
cp "$tmp/cpp/lite_generated.h" "$tmp/out/runtime_arm/src/schema/lite_generated.h"
# The options table (the generator reads lite.fbs itself, and lite_ops.py).
"$python" -m lite_converter.op_table_codegen "$tmp/out/runtime_arm/src/op_options_table.cc"

if [ "$check" = 1 ]; then
  stale=$(diff -rq "$tmp/out/lite_converter/lite_fb" lite_converter/lite_fb -x __pycache__ || true)
  for f in runtime_arm/src/schema/lite_generated.h runtime_arm/src/op_options_table.cc; do
    cmp -s "$tmp/out/$f" "$f" || stale+=$'\n'"$f differs"
  done
  if [ -n "${stale//[$'\n']}" ]; then
    echo "generated files are stale (run make schema):$stale" >&2
    exit 1
  fi
  exit 0
fi
rm -rf lite_converter/lite_fb
mkdir -p lite_converter/lite_fb
cp "$tmp"/out/lite_converter/lite_fb/*.py lite_converter/lite_fb/
cp "$tmp/out/runtime_arm/src/schema/lite_generated.h" runtime_arm/src/schema/lite_generated.h
cp "$tmp/out/runtime_arm/src/op_options_table.cc" runtime_arm/src/op_options_table.cc
