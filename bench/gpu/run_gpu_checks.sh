#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, the driver and the CUDA toolkit (cuBLAS,
# cuDNN): the GPU tests, then a real server and GPU worker tuning a matmul
# and a ResNet convolution, each best beside cuBLAS / cuDNN timed in the same
# run (best of 3 fresh processes of the peers).
#
#   bench/gpu/run_gpu_checks.sh PACK_DIR RESULTS_DIR [--trials N] [--skip-tests]
#
# PACK_DIR is what bench/gpu/pack.sh made. RESULTS_DIR gets tests.log,
# tune-*.json, peers.jsonl, summary.txt and logs.txt (the server's, the
# worker's and the tunings' logs in one file: a lent machine returns at
# most 8 files).
set -uo pipefail

PACK="$(cd "${1:?usage: run_gpu_checks.sh PACK_DIR RESULTS_DIR [--trials N]}" && pwd)"
RESULTS="${2:?usage: run_gpu_checks.sh PACK_DIR RESULTS_DIR [--trials N]}"
shift 2
TRIALS=128
RUN_TESTS=1
while (($#)); do
  case "$1" in
    --trials) TRIALS="$2"; shift 2 ;;
    --skip-tests) RUN_TESTS=0; shift ;;
    *) echo "run_gpu_checks: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p "$RESULTS"
RESULTS="$(cd "$RESULTS" && pwd)"
WORK="$(mktemp -d)"
cleanup() { [[ -n "${PIDS:-}" ]] && kill $PIDS 2>/dev/null; }
trap cleanup EXIT

echo "== unpacking"
python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$PACK/tuneforge-gpu.tar.xz" "$WORK"
LOADER="$(cat "$WORK/loader")"

# Library folders of the machine's driver and toolkit, after the pack's own.
lib_dir_of() {  # NAME: the folder of the first library of that name found
  local hit
  hit="$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n {print $NF; exit}')"
  [[ -z "$hit" ]] && hit="$(find /usr/local/cuda/ /usr/local/nvidia/ /usr/lib/x86_64-linux-gnu/ /opt/ \
    -name "$1" 2>/dev/null | head -1)"
  [[ -n "$hit" ]] && dirname "$hit"
}
LIBS="$WORK/lib"
for name in libcuda.so.1 libnvrtc.so.13 libcublas.so.13 libcudnn.so.9 libcudart.so.13; do
  dir="$(lib_dir_of "$name")"
  echo "$name: ${dir:-not found}"
  [[ -n "$dir" && ":$LIBS:" != *":$dir:"* ]] && LIBS="$LIBS:$dir"
done

# Every binary runs through the pack's loader and libraries.
WRAP="$WORK/wrap"
mkdir -p "$WRAP"
for b in "$WORK"/bin/*; do
  cat >"$WRAP/$(basename "$b")" <<SCRIPT
#!/bin/sh
exec "$WORK/lib/$LOADER" --library-path "$LIBS" "$b" "\$@"
SCRIPT
  chmod +x "$WRAP/$(basename "$b")"
done
export TF_BIN_DIR="$WRAP" TUNEFORGE_RUNNER="$WRAP/tuneforge-runner"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true

if ((RUN_TESTS)); then
  echo "== GPU tests"
  timeout 300 "$WRAP/search_tests" --gtest_filter='Gpu*' 2>&1 | tee "$RESULTS/tests.log" | \
    grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure|error" | head -60
  timeout 300 "$WRAP/client_tests" --gtest_filter='GpuWorker*' 2>&1 | tee -a "$RESULTS/tests.log" | \
    grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure|error" | head -30
fi

echo "== peers (cuBLAS, cuDNN): best of 3 processes"
: >"$RESULTS/peers.jsonl"
for i in 1 2 3; do
  timeout 120 "$WRAP/tuneforge-gpu-peers" --json --matmul 4096,4096,4096 --conv 1,256,14,14,256,3,3,1,1 \
    >>"$RESULTS/peers.jsonl" 2>>"$RESULTS/peers.err" || tail -3 "$RESULTS/peers.err"
done

echo "== server and GPU worker"
printf 'gpu-bench-token\n' >"$WORK/token"
export TUNEFORGE_TOKEN=gpu-bench-token
ADDR=127.0.0.1:50551
"$WRAP/tuneforge-server" --listen "$ADDR" --db "$WORK/records.db" --token-file "$WORK/token" \
  >"$RESULTS/server.log" 2>&1 &
PIDS="$!"
sleep 2
"$WRAP/tuneforge-worker" --server "$ADDR" --token-file "$WORK/token" --gpu 0 --verbose >"$RESULTS/worker.log" 2>&1 &
PIDS="$PIDS $!"
sleep 3
"$WRAP/tuneforge" workers --server "$ADDR" --token-file "$WORK/token" --json | tee "$RESULTS/workers.json"
KEY="$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['workers'][0]['device_key'])" \
  "$RESULTS/workers.json")" || { tail -5 "$RESULTS/worker.log"; exit 1; }
echo "device key: $KEY"

for spec in "matmul:M=4096,N=4096,K=4096" "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1"; do
  name="$(echo "$spec" | cut -d: -f1)"
  echo "== tune $spec ($TRIALS trials)"
  timeout 400 "$WRAP/tuneforge" tune "$spec" --server "$ADDR" --token-file "$WORK/token" --device-key "$KEY" \
    --trials "$TRIALS" --batch 64 --min-repeat-ms 20 --timeout 20 --json \
    >"$RESULTS/tune-$name.json" 2>"$RESULTS/tune-$name.err"
  tail -2 "$RESULTS/tune-$name.err"
done

echo "== summary"
python3 - "$RESULTS" "$KEY" <<'PY' | tee "$RESULTS/summary.txt"
import json, sys, os
results, key = sys.argv[1], sys.argv[2]
peers = {}
for line in open(os.path.join(results, "peers.jsonl")):
    try:
        p = json.loads(line)
    except ValueError:
        continue
    k = (p["peer"], p["workload"])
    peers[k] = max(peers.get(k, 0), p["gflops"])
rows = [("matmul", "matmul:M=4096,N=4096,K=4096", "cublas_sgemm"),
        ("conv2d", "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1", "cudnn_conv")]
print(f"device {key}; fp32; peers best of 3 processes; tuneforge: the tuning's best "
      "(checked against the naive GPU program)")
print(f"{'workload':52} {'trials':>6} {'tuneforge GFLOPS':>16} {'peer':>14} {'peer GFLOPS':>11} {'ratio':>6}")
for name, spec, peer in rows:
    try:
        t = json.load(open(os.path.join(results, f"tune-{name}.json")))
    except (OSError, ValueError):
        t = {}
    ours, trials = t.get("best_gflops", 0.0), t.get("trials", 0)
    theirs = peers.get((peer, spec), 0.0)
    ratio = ours / theirs if theirs else 0.0
    print(f"{spec:52} {trials:>6} {ours:>16.1f} {peer:>14} {theirs:>11.1f} {ratio:>5.2f}x")
tf32 = peers.get(("cublas_sgemm_tf32", rows[0][1]))
if tf32:
    print(f"(cuBLAS with TF32 tensor cores: {tf32:.1f} GFLOPS, not the fp32 baseline)")
PY

for f in workers.json server.log worker.log peers.err tune-matmul.err tune-conv2d.err; do
  [[ -f "$RESULTS/$f" ]] && { echo "==== $f"; cat "$RESULTS/$f"; rm -f "$RESULTS/$f"; }
done >"$RESULTS/logs.txt"
