#!/usr/bin/python3
"""Single operators that models need, tuned by tuneforge and timed beside
PyTorch's own kernels in the same run: strided depthwise convolutions
(MobileNetV2's) and transposed convolutions (DCGAN's generator). Each shape
is tuned into its own record database, then tuneforge's best
(`measure --best`) and PyTorch (`pytorch_op.py`) are each timed in several
fresh processes, alternating, and the best of each is kept. Appends one JSON
line per shape to --results, so that parts run on different days merge.

    bench/models/ops_vs_pytorch.py --trials 150 --shapes dw96,dw144 --results ops.jsonl
    bench/models/ops_vs_pytorch.py --report ops.jsonl
"""
import argparse
import json
import os
import sys
import time

from compare_models import append_row, run_json  # the script's own folder is on sys.path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: (tuneforge spec, pytorch_op.py arguments)
SHAPES = {
    # MobileNetV2's stride-2 depthwise convolutions (batch 1, 3x3, pad 1).
    "dw96": ("depthwise_conv2d:N=1,C=96,H=112,W=112,R=3,S=3,stride=2,pad=1",
             ["depthwise", "--C", "96", "--H", "112", "--W", "112", "--R", "3", "--stride", "2", "--pad", "1"]),
    "dw144": ("depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=2,pad=1",
              ["depthwise", "--C", "144", "--H", "56", "--W", "56", "--R", "3", "--stride", "2", "--pad", "1"]),
    "dw192": ("depthwise_conv2d:N=1,C=192,H=28,W=28,R=3,S=3,stride=2,pad=1",
              ["depthwise", "--C", "192", "--H", "28", "--W", "28", "--R", "3", "--stride", "2", "--pad", "1"]),
    "dw576": ("depthwise_conv2d:N=1,C=576,H=14,W=14,R=3,S=3,stride=2,pad=1",
              ["depthwise", "--C", "576", "--H", "14", "--W", "14", "--R", "3", "--stride", "2", "--pad", "1"]),
    # DCGAN generator's stride-2 transposed convolutions (4x4 kernels, pad 1).
    "tc512": ("conv2d_transpose:N=1,C=512,H=4,W=4,K=256,R=4,S=4,stride=2,pad=1",
              ["conv_transpose", "--C", "512", "--K", "256", "--H", "4", "--W", "4", "--R", "4", "--stride", "2",
               "--pad", "1"]),
    "tc256": ("conv2d_transpose:N=1,C=256,H=8,W=8,K=128,R=4,S=4,stride=2,pad=1",
              ["conv_transpose", "--C", "256", "--K", "128", "--H", "8", "--W", "8", "--R", "4", "--stride", "2",
               "--pad", "1"]),
    "tc128": ("conv2d_transpose:N=1,C=128,H=16,W=16,K=64,R=4,S=4,stride=2,pad=1",
              ["conv_transpose", "--C", "128", "--K", "64", "--H", "16", "--W", "16", "--R", "4", "--stride", "2",
               "--pad", "1"]),
}


def compare(tf, name, trials, threads, processes, db_dir):
    spec, torch_args = SHAPES[name]
    db = os.path.join(db_dir, f"{name}.db")
    start = time.time()
    if trials > 0:
        run_json([tf, "tune", spec, "--trials", str(trials), "--db", db, "--threads", str(threads), "--json"])
    tune_s = time.time() - start
    ours, theirs = [], []
    for _ in range(processes):  # alternating, so that both see the same minutes
        m = run_json([tf, "measure", spec, "--best", "--db", db, "--threads", str(threads), "--repeat", "5",
                      "--min-repeat-ms", "200", "--json"])
        ours.append(m["seconds"] * 1e3)
        p = run_json([sys.executable, os.path.join(HERE, "pytorch_op.py"), *torch_args, "--threads", str(threads),
                      "--runs", "100"])
        theirs.append(p["ms"])
    return {"shape": name, "spec": spec, "trials": trials, "tune_s": tune_s, "tuneforge_ms": min(ours),
            "pytorch_ms": min(theirs), "tuneforge_all_ms": ours, "pytorch_all_ms": theirs, "threads": threads,
            "unix_s": int(time.time())}


def table(rows):
    print(f"{'shape':<8}{'trials':>7}{'tuneforge ms':>14}{'PyTorch ms':>12}{'speed-up':>10}  spec")
    for r in rows:
        print(f"{r['shape']:<8}{r['trials']:>7}{r['tuneforge_ms']:>14.4f}{r['pytorch_ms']:>12.4f}"
              f"{r['pytorch_ms'] / r['tuneforge_ms']:>9.2f}x  {r['spec']}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--trials", type=int, default=150)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--db-dir", default="ops_dbs")
    parser.add_argument("--results", default="ops_results.jsonl")
    parser.add_argument("--report")
    parser.add_argument("--tuneforge", default=os.path.join(ROOT, "build", "bin", "tuneforge"))
    args = parser.parse_args()
    if args.report:
        table([json.loads(line) for line in open(args.report) if line.strip()])
        return
    unknown = [s for s in args.shapes.split(",") if s not in SHAPES]
    if unknown:
        sys.exit(f"unknown shape(s) {', '.join(unknown)}; known: {', '.join(SHAPES)}")
    os.makedirs(args.db_dir, exist_ok=True)
    rows = []
    for name in args.shapes.split(","):
        row = compare(args.tuneforge, name, args.trials, args.threads, args.processes, args.db_dir)
        rows.append(row)
        append_row(args.results, row)
    table(rows)


if __name__ == "__main__":
    main()
