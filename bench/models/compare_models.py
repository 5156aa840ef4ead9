#!/usr/bin/python3
"""End-to-end model latency: tuneforge (the best kernels of a record database)
beside PyTorch measured in the same run, each the best of several fresh
processes, at one thread count; prints a table and appends JSON lines to a
results file so that long tunes done in parts merge into one report.

    bench/models/export_models.py --out M
    bench/models/compare_models.py --models-dir M --db tune.db --tune-trials 500   # a tuning part
    bench/models/compare_models.py --models-dir M --db tune.db                     # measure only
    bench/models/compare_models.py --report results.jsonl                          # merge the parts

A part with --tune-trials runs `tuneforge tune --model` first (records go to
--db; a later part continues from them: the cost model and the best records
carry over) and records the trials and wall time it spent.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_json(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout)


def append_row(path, row):
    """One result as a JSON line, so that parts run on different days merge."""
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")


def tuneforge_latency(tf, model, db, threads, processes, runs):
    best = None
    for _ in range(processes):
        j = run_json([tf, "run", "--model", model, "--db", db, "--threads", str(threads), "--runs", str(runs), "--json"])
        if best is None or j["latency_ms"] < best["latency_ms"]:
            best = j
    return best


def pytorch_latency(name, threads, processes, runs):
    best = None
    for _ in range(processes):
        j = run_json([sys.executable, os.path.join(HERE, "pytorch_latency.py"), "--model", name,
                      "--threads", str(threads), "--runs", str(runs)])
        best = j["latency_ms"] if best is None else min(best, j["latency_ms"])
    return best


def table(rows):
    print(f"{'model':<14}{'tasks':>6}{'untuned':>8}{'trials':>8}{'tune s':>8}{'tuneforge ms':>14}"
          f"{'PyTorch ms':>12}{'speed-up':>10}  outputs")
    for r in rows:
        print(f"{r['model']:<14}{r['tasks']:>6}{r['untuned_tasks']:>8}{r['trials']:>8}{r['tune_s']:>8.0f}"
              f"{r['latency_ms']:>14.3f}{r['pytorch_ms']:>12.3f}{r['pytorch_ms'] / r['latency_ms']:>9.2f}x  "
              f"{'match' if r['outputs_checked'] else 'MISMATCH'}")


def report(path):
    parts = [json.loads(line) for line in open(path) if line.strip()]
    by_model = {}
    for p in parts:  # trials and wall add up over parts; the last measurement stands
        m = by_model.setdefault(p["model"], dict(p, trials=0, tune_s=0.0))
        m.update({k: v for k, v in p.items() if k not in ("trials", "tune_s")})
        m["trials"] += p["trials"]
        m["tune_s"] += p["tune_s"]
    table(list(by_model.values()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models-dir")
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,dcgan,bert_layer")
    parser.add_argument("--db", default="models.db")
    parser.add_argument("--tune-trials", type=int, default=0)
    parser.add_argument("--conv-algorithm", choices=["direct", "winograd", "auto"], default="direct",
                        help="the form(s) a tuning part tunes 3x3 stride-1 convs in; `run` then picks each conv's "
                             "faster record")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--results", default="model_results.jsonl")
    parser.add_argument("--report")
    parser.add_argument("--tuneforge", default=os.path.join(ROOT, "build", "bin", "tuneforge"))
    args = parser.parse_args()
    if args.report:
        report(args.report)
        return
    rows = []
    for name in args.models.split(","):
        model = os.path.join(args.models_dir, name, "model.onnx")
        trials, tune_s, search = 0, 0.0, None
        if args.tune_trials > 0:
            start = time.time()
            j = run_json([args.tuneforge, "tune", "--model", model, "--trials", str(args.tune_trials), "--db", args.db,
                          "--threads", str(args.threads), "--conv-algorithm", args.conv_algorithm, "--json"])
            trials, tune_s, search = j["trials"], time.time() - start, j.get("search")
        tf = tuneforge_latency(args.tuneforge, model, args.db, args.threads, args.processes, args.runs)
        row = {"model": name, "conv_algorithm": args.conv_algorithm if args.tune_trials > 0 else None,
               "tasks": tf["tasks"], "untuned_tasks": tf["untuned_tasks"], "trials": trials,
               "tune_s": tune_s, "latency_ms": tf["latency_ms"], "outputs_checked": tf["outputs_checked"],
               "max_abs_error": tf["max_abs_error"],
               "pytorch_ms": pytorch_latency(name, args.threads, args.processes, args.runs),
               "threads": args.threads, "unix_s": int(time.time()),
               # where the time goes: the search's own share of the tuning, each task's kernels per model run
               "search": search,
               "profile": [{"workload": k.get("workload") or k["name"], "weight": k["weight"], "ms": k.get("ms")}
                           for k in tf.get("kernels", [])]}
        rows.append(row)
        append_row(args.results, row)
    table(rows)


if __name__ == "__main__":
    main()
