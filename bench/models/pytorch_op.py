#!/usr/bin/python3
"""PyTorch's time for one operator shape (eager, no grad, fp32, batch 1) at a
thread count, median of repeated runs, as JSON: the peer for single-op
figures that PyTorch's own kernels set (depthwise and transposed convolutions).

    bench/models/pytorch_op.py depthwise --C 96 --H 112 --W 112 --R 3 --stride 2 --pad 1
    bench/models/pytorch_op.py conv_transpose --C 512 --K 256 --H 4 --W 4 --R 4 --stride 2 --pad 1
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("op", choices=["depthwise", "conv_transpose", "conv2d"])
    for key in ("C", "K", "H", "W", "R"):
        parser.add_argument(f"--{key}", type=int, default=0)
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--pad", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=50)
    a = parser.parse_args()
    torch.set_num_threads(a.threads)
    x = torch.rand(1, a.C, a.H, a.W)
    if a.op == "depthwise":
        w = torch.rand(a.C, 1, a.R, a.R)
        run = lambda: F.conv2d(x, w, stride=a.stride, padding=a.pad, groups=a.C)
    elif a.op == "conv_transpose":
        w = torch.rand(a.C, a.K, a.R, a.R)
        run = lambda: F.conv_transpose2d(x, w, stride=a.stride, padding=a.pad)
    else:
        w = torch.rand(a.K, a.C, a.R, a.R)
        run = lambda: F.conv2d(x, w, stride=a.stride, padding=a.pad)
    times = []
    with torch.no_grad():
        for _ in range(5):
            run()
        for _ in range(a.runs):
            start = time.perf_counter()
            run()
            times.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"op": a.op, "threads": a.threads, "ms": statistics.median(times)}))


if __name__ == "__main__":
    main()
