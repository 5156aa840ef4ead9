#!/usr/bin/env bash
# Packs the device worker into one folder a user copies to a machine and
# starts with one command:
#
#   deploy/bundle.sh --arch x86_64|aarch64 --out DIR [--build-dir B]
#   DIR/run-worker --server HOST:PORT --token-file F [worker flags]
#
# DIR holds bin/ (the runner-only tuneforge-worker and tuneforge-runner: no
# compiler, the server builds for the board), lib/ (every shared library
# they load, and the dynamic loader), and run-worker, which starts
# the worker through the bundled loader so nothing on the machine but its
# kernel is used. With TUNEFORGE_EMULATOR set (qemu-aarch64, qemu-x86_64)
# run-worker runs the bundle under that emulator, and the worker registers
# as emulated (its timings mean nothing). On x86_64 the aarch64 bundle comes
# from the cross build that deploy/setup.sh makes in B/aarch64.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ARCH=""
OUT=""
BUILD_DIR="${TUNEFORGE_BUILD_DIR:-$ROOT/build}"

usage() {
  echo "usage: deploy/bundle.sh --arch x86_64|aarch64 --out DIR [--build-dir B]" >&2
  exit 2
}

while (($#)); do
  case "$1" in
    --arch) ARCH="${2:-}"; shift 2 ;;
    --out) OUT="${2:-}"; shift 2 ;;
    --build-dir) BUILD_DIR="${2:-}"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bundle: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -n "$ARCH" && -n "$OUT" ]] || usage

HOST_ARCH="$(uname -m)"
case "$ARCH" in
  x86_64|aarch64) ;;
  *) echo "bundle: --arch must be x86_64 or aarch64, not '$ARCH'" >&2; exit 2 ;;
esac

# The runner-only build: no LLVM, linker or NVRTC; the server builds and
# links every kernel for the board and ships it as a shared object. Another
# architecture's is cross-built into BUILD_DIR/ARCH (cmake/CrossAarch64.cmake).
if [[ "$ARCH" == "$HOST_ARCH" ]]; then
  BIN="$BUILD_DIR/bin/runner-only"
  TARGET=tuneforge-runner-only-worker
  SETUP_HINT="run deploy/setup.sh first"
else
  BIN="$BUILD_DIR/$ARCH/bin/runner-only"
  TARGET=tuneforge-$ARCH
  SETUP_HINT="the $ARCH worker is cross-built on $HOST_ARCH by deploy/setup.sh (it installs Debian's $ARCH"
  SETUP_HINT+=" toolchain and the $ARCH multiarch packages of gRPC, Protobuf and Abseil); run it first"
  if [[ "$ARCH" != aarch64 || "$HOST_ARCH" != x86_64 ]]; then
    echo "bundle: only the aarch64 bundle is cross-built (on x86_64); make the $ARCH bundle on a $ARCH machine" \
         "after deploy/setup.sh" >&2
    exit 2
  fi
fi
# Built here when missing from a configured build folder (the cross build
# only where its toolchain and packages are installed).
if [[ ! -x "$BIN/tuneforge-worker" || ! -x "$BIN/tuneforge-runner" ]] && [[ -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake --build "$BUILD_DIR" --target "$TARGET" >&2 || true
fi
for b in tuneforge-worker tuneforge-runner; do
  [[ -x "$BIN/$b" ]] || { echo "bundle: $BIN/$b is missing: $SETUP_HINT" >&2; exit 1; }
done

mkdir -p "$OUT/bin" "$OUT/lib"
OUT="$(cd "$OUT" && pwd)"
cp -f "$BIN/tuneforge-worker" "$BIN/tuneforge-runner" "$OUT/bin/"

# Every library the binaries load, and the loader itself. Native: ldd
# resolves them here, on the machine they were built on. Cross: the ELF's
# NEEDED entries, followed through the $ARCH multiarch folders.
LOADER=""
native_libraries() {  # BINARY -> one path per line
  # "libx.so => /path (0x..)" or "/lib64/ld-linux-x86-64.so.2 (0x..)"
  ldd "$1" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'
}
CROSS_DIRS=("/lib/$ARCH-linux-gnu" "/usr/lib/$ARCH-linux-gnu" "/usr/$ARCH-linux-gnu/lib")
cross_libraries() {  # BINARY -> one path per line, the loader first
  local interp
  interp="$(readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')"
  [[ -n "$interp" ]] && resolve_cross "$(basename "$interp")"
  local -A seen=()
  local queue=("$1")
  while ((${#queue[@]})); do
    local file="${queue[0]}"
    queue=("${queue[@]:1}")
    local name
    for name in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [[ -n "${seen[$name]:-}" ]] && continue
      seen[$name]=1
      local path
      path="$(resolve_cross "$name")" || { echo "bundle: $name (needed by $file) is not installed for $ARCH" >&2
                                          return 1; }
      echo "$path"
      queue+=("$path")
    done
  done
}
resolve_cross() {  # LIBRARY_NAME -> its path for ARCH
  local d
  for d in "${CROSS_DIRS[@]}"; do
    [[ -e "$d/$1" ]] && { echo "$d/$1"; return 0; }
  done
  return 1
}
for b in tuneforge-worker tuneforge-runner; do
  if [[ "$ARCH" == "$HOST_ARCH" ]]; then
    libraries="$(native_libraries "$BIN/$b")"
  else
    libraries="$(cross_libraries "$BIN/$b")"
  fi
  while read -r path; do
    [[ -n "$path" && -f "$path" ]] || continue
    case "$(basename "$path")" in
      ld-linux*) LOADER="$(basename "$path")" ;;
    esac
    cp -fL "$path" "$OUT/lib/"
  done <<<"$libraries"
done
[[ -n "$LOADER" ]] || { echo "bundle: the worker names no dynamic loader" >&2; exit 1; }

# The runner is started by the worker: a wrapper runs it the same way.
write_launcher() {  # NAME BINARY
  cat >"$1" <<SCRIPT
#!/bin/sh
# Generated by deploy/bundle.sh: runs $2 with the bundled libraries and loader.
HERE="\$(cd "\$(dirname "\$0")" && pwd)"
DIR="\$(cd "\$HERE/.." && pwd)"
exec \${TUNEFORGE_EMULATOR:+"\$TUNEFORGE_EMULATOR"} "\$DIR/lib/$LOADER" --library-path "\$DIR/lib" "\$DIR/bin/$2" "\$@"
SCRIPT
  chmod +x "$1"
}
mkdir -p "$OUT/launch"
write_launcher "$OUT/launch/tuneforge-runner" tuneforge-runner
write_launcher "$OUT/launch/tuneforge-worker" tuneforge-worker

cat >"$OUT/run-worker" <<'SCRIPT'
#!/bin/sh
# Starts this bundle's device worker: run-worker --server HOST:PORT --token-file F [flags].
# TUNEFORGE_EMULATOR=qemu-aarch64 runs it under emulation (timings mean nothing).
DIR="$(cd "$(dirname "$0")" && pwd)"
TUNEFORGE_RUNNER="$DIR/launch/tuneforge-runner"
export TUNEFORGE_RUNNER
exec "$DIR/launch/tuneforge-worker" "$@"
SCRIPT
chmod +x "$OUT/run-worker"
echo "bundle: $ARCH worker in $OUT ($(du -sh "$OUT" | cut -f1)); start it with $OUT/run-worker --server HOST:PORT --token-file F"
