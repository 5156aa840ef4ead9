#!/usr/bin/python3
"""Task schedulers compared on one model: `tuneforge tune --model` with
round-robin and with the gradient scheduler, same trials and seed, each into a
fresh database; the estimated end-to-end latency (sum of weight x best) after
each round, from the progress lines, as one table, and the trials each needs
to come within 10% and 5% of the better final estimate.

    bench/models/scheduler_curve.py --model M/dcgan/model.onnx --trials 300 [--seed 1] [--out curve.json]

A long comparison runs in parts: `--only gradient --reuse earlier.json` reruns one
scheduler and takes the other's curve from an earlier run's --out file (same
model, trials, seed and batch; the table says which curve was reused).

`--shared-warmup N` runs the first N trials once, round-robin, and both
schedulers go on from copies of that database (a later job goes on from the
store's records: each task's trials and best, its fastest programs). The
gradient scheduler's warm-up is round-robin too (8 trials a task), but two
separate runs of it end in other places (the cost model learns from timings
of another moment): with N = 8 x tasks both start from the same one, and
the curves differ by what the schedulers did after it.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LINE = re.compile(r"round \d+: (\d+)/\d+ trials.*?est\. end-to-end ([0-9.e+-]+) ms( \((\d+) of (\d+) tasks timed\))?")


def curve(tf, model, scheduler, trials, seed, threads, batch, from_db=None, trials_before=0):
    db = os.path.join(tempfile.mkdtemp(prefix="tf-curve-"), "curve.db")
    if from_db:  # with its write-ahead log, should the warm-up have left one
        for suffix in ("", "-wal"):
            if os.path.exists(from_db + suffix):
                shutil.copyfile(from_db + suffix, db + suffix)
    cmd = [tf, "tune", "--model", model, "--trials", str(trials), "--db", db, "--task-scheduler", scheduler,
           "--seed", str(seed), "--threads", str(threads), "--batch", str(batch), "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {out.stderr[-2000:]}")
    points = {}
    for line in out.stderr.splitlines():
        m = LINE.search(line)
        if m and not m.group(3):  # only once every task has a best
            points[trials_before + int(m.group(1))] = float(m.group(2))
    return sorted(points.items()), json.loads(out.stdout), db


def first_within(points, target):
    return next((t for t, ms in points if ms <= target), None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--out")
    parser.add_argument("--only", choices=("round-robin", "gradient"), help="run this scheduler alone")
    parser.add_argument("--reuse", help="an earlier --out file: the schedulers not run are taken from it")
    parser.add_argument("--shared-warmup", type=int, default=0,
                        help="trials run once (round-robin) before both schedulers go on from them")
    parser.add_argument("--tuneforge", default=os.path.join(ROOT, "build", "bin", "tuneforge"))
    args = parser.parse_args()
    results = {}
    reused = []
    if args.reuse:
        with open(args.reuse) as f:
            earlier = json.load(f)
        for scheduler, r in earlier.items():
            if scheduler != args.only:
                results[scheduler] = r
                reused.append(scheduler)
    warmup, warmup_db = [], None
    if args.shared_warmup:
        if not 0 < args.shared_warmup < args.trials:
            parser.error("--shared-warmup must be between 0 and --trials")
        warmup, _, warmup_db = curve(args.tuneforge, args.model, "round-robin", args.shared_warmup, args.seed,
                                     args.threads, args.batch)
        print(f"shared warm-up: {args.shared_warmup} trials round-robin, est. end-to-end "
              f"{warmup[-1][1] if warmup else float('nan'):.3f} ms")
    for scheduler in ("round-robin", "gradient"):
        if args.only and scheduler != args.only:
            continue
        points, final, _ = curve(args.tuneforge, args.model, scheduler, args.trials - args.shared_warmup, args.seed,
                                 args.threads, args.batch, warmup_db, args.shared_warmup)
        results[scheduler] = {"points": warmup + points, "latency_ms": final.get("latency_ms"),
                              "wall_s": final.get("wall_s"), "shared_warmup": args.shared_warmup}
    missing = [s for s in ("round-robin", "gradient") if s not in results]
    if missing:
        parser.error(f"no curve for {', '.join(missing)}: drop --only or give --reuse with it")
    for s in reused:
        print(f"{s}: curve reused from {args.reuse}")
    best = min(min(ms for _, ms in r["points"]) for r in results.values() if r["points"])
    trials = sorted({t for r in results.values() for t, _ in r["points"]})
    print(f"{'trials':>7}{'round-robin ms':>16}{'gradient ms':>14}")
    for t in trials:
        row = [dict(r["points"]).get(t) for r in (results["round-robin"], results["gradient"])]
        print(f"{t:>7}" + "".join(f"{v:>16.3f}" if v is not None else f"{'':>16}" for v in row[:1]) +
              "".join(f"{v:>14.3f}" if v is not None else f"{'':>14}" for v in row[1:]))
    for frac in (1.10, 1.05):
        print(f"trials to within {round((frac - 1) * 100)}% of {best:.3f} ms: " + ", ".join(
            f"{s} {first_within(results[s]['points'], best * frac)}" for s in results))
    for s, r in results.items():
        print(f"{s}: model run after tuning {r['latency_ms']:.3f} ms, tuning wall {r['wall_s']:.0f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
