#!/usr/bin/env bash
# Sets up a Debian 12 machine for tuneforge and builds everything into build/.
# Idempotent: installs only missing packages, reconfigures only when needed;
# a second run with nothing changed takes seconds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TUNEFORGE_BUILD_DIR:-$ROOT/build}"

# Build dependencies (a comment says why where it is not obvious).
PACKAGES=(
  cmake ninja-build g++ pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libsqlite3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libxgboost-dev llvm-19-dev nlohmann-json3-dev libcli11-dev
  liblld-19-dev   # links kernels into shared objects for runner-only workers (boards)
  libonnx-dev libonnx-testdata   # model import; the backend conformance data its tests run
  libopenblas-dev libdnnl-dev   # peers in tuneforge-bench
  ocl-icd-opencl-dev opencl-headers   # Debian's dnnl CMake config requires OpenCL (its GPU runtime)
  g++-aarch64-linux-gnu qemu-user   # AArch64 kernels are linked and run under qemu in tests
  openssl   # the TLS tests make their CA, certificates and keys with it
)

# The aarch64 board bundle is cross-built here (cmake/CrossAarch64.cmake)
# against Debian's arm64 multiarch packages, which co-install beside these.
ARM64_PACKAGES=(libgrpc++-dev:arm64 libprotobuf-dev:arm64 libabsl-dev:arm64)
if [[ "$(uname -m)" == x86_64 ]]; then
  PACKAGES+=("${ARM64_PACKAGES[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  if [[ "${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
  fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)
# A configure that failed half-way leaves a cache but no build files: configure again.
if [[ ! -f "$BUILD_DIR/build.ninja" && ! -f "$BUILD_DIR/Makefile" ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
