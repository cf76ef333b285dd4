#!/usr/bin/env bash
# Regenerates (from the repository root: runtime_arm/schema/generate.sh) the Python and C++ readers/writers from runtime_arm/schema/lite.fbs.
# flatc's Python output imports its siblings by absolute namespace ("from lite_fb.X import X");
# the package lives inside lite_converter/, so those imports are rewritten to the package path.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v flatc >/dev/null || { echo "flatc not found: apt-get install flatbuffers-compiler" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flatc --python -o "$tmp/py" runtime_arm/schema/lite.fbs
flatc --cpp --scoped-enums -o "$tmp/cpp" runtime_arm/schema/lite.fbs
rm -rf lite_converter/lite_fb
mkdir -p lite_converter/lite_fb runtime_arm/src/schema
for f in "$tmp"/py/lite_fb/*.py; do
  sed -e 's/^\(\s*\)from lite_fb\./\1from lite_converter.lite_fb./' \
      -e 's/^\(\s*\)import lite_fb\./\1import lite_converter.lite_fb./' "$f" > "lite_converter/lite_fb/$(basename "$f")"
done
cp "$tmp/cpp/lite_generated.h" runtime_arm/src/schema/lite_generated.h
