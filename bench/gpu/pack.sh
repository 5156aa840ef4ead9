#!/usr/bin/env bash
# Packs this build for a GPU machine that has the NVIDIA driver and the CUDA
# toolkit but none of tuneforge's Debian libraries:
#
#   bench/gpu/pack.sh --out DIR [--build-dir B]
#   bench/gpu/run_gpu_checks.sh DIR RESULTS_DIR      (on the GPU machine)
#
# DIR/tuneforge-gpu.tar.xz holds bin/ (server, worker, runner, CLI, the GPU
# tests and the cuBLAS/cuDNN peers), lib/ (every library they load except
# the CUDA toolkit's and the driver's, which the GPU machine has) and the
# dynamic loader. LLVM's optional z3 and libxml2 are replaced by empty stubs
# of the same names: tuneforge never calls them, and they would be a third of
# the pack (a lent GPU machine takes 64 MiB of uploads).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT=""
BUILD_DIR="$ROOT/build"
while (($#)); do
  case "$1" in
    --out) OUT="${2:-}"; shift 2 ;;
    --build-dir) BUILD_DIR="${2:-}"; shift 2 ;;
    *) echo "usage: bench/gpu/pack.sh --out DIR [--build-dir B]" >&2; exit 2 ;;
  esac
done
[[ -n "$OUT" ]] || { echo "usage: bench/gpu/pack.sh --out DIR [--build-dir B]" >&2; exit 2; }

BINARIES=(tuneforge tuneforge-server tuneforge-worker tuneforge-runner search_tests client_tests tuneforge-gpu-peers)
for b in "${BINARIES[@]}"; do
  [[ -x "$BUILD_DIR/bin/$b" ]] || { echo "pack: $BUILD_DIR/bin/$b is missing: build it first" >&2; exit 1; }
done

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib"
for b in "${BINARIES[@]}"; do cp "$BUILD_DIR/bin/$b" "$STAGE/bin/"; done

for b in "${BINARIES[@]}"; do
  while read -r path; do
    case "$path" in
      /usr/local/cuda*|*/libcuda.so*) continue ;;  # the GPU machine's own toolkit and driver
      */libz3.so*|*/libxml2.so*|*/libicu*) continue ;;  # stubbed below
    esac
    [[ "$(basename "$path")" == ld-linux* ]] && echo "$(basename "$path")" >"$STAGE/loader"
    cp -nL "$path" "$STAGE/lib/"
  done < <(ldd "$BUILD_DIR/bin/$b" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')
done

# Stubs: the sonames and symbol versions libLLVM asks for, and the one data
# symbol it binds at load (xmlFree); its calls into them are never made.
echo 'void tuneforge_stub(void) {} void* xmlFree = 0;' >"$STAGE/stub.c"
printf 'LIBXML2_2.4.30 { global: tuneforge_stub; xmlFree; };\nLIBXML2_2.6.0 { } LIBXML2_2.4.30;\n' >"$STAGE/xml.map"
gcc -shared -fPIC -Wl,-soname,libxml2.so.2 -Wl,--version-script="$STAGE/xml.map" -o "$STAGE/lib/libxml2.so.2" \
  "$STAGE/stub.c"
gcc -shared -fPIC -Wl,-soname,libz3.so.4 -o "$STAGE/lib/libz3.so.4" "$STAGE/stub.c"
rm -f "$STAGE/stub.c" "$STAGE/xml.map"

mkdir -p "$OUT"
tar -C "$STAGE" -cf - . | xz -9 -T0 >"$OUT/tuneforge-gpu.tar.xz"
echo "pack: $(du -h "$OUT/tuneforge-gpu.tar.xz" | cut -f1) in $OUT/tuneforge-gpu.tar.xz"
