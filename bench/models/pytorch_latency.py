#!/usr/bin/python3
"""PyTorch's latency of one benchmark model (eager, no grad, batch 1, fp32) at
a thread count: the median of repeated runs after a warm-up, printed as JSON.
compare_models.py runs it in several fresh processes and keeps the best."""
import argparse
import json
import statistics
import time

import torch

from export_models import models


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    make, shape = models()[args.model]
    torch.manual_seed(0)
    model = make().eval()
    x = torch.rand(*shape)
    times = []
    with torch.no_grad():
        for _ in range(3):
            model(x)
        for _ in range(args.runs):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"model": args.model, "threads": args.threads, "latency_ms": statistics.median(times)}))


if __name__ == "__main__":
    main()
