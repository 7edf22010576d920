"""The workbench's two figures: seconds to the first verdict for a one-card
change at 4 players (Peer-to-Peer, warm numba cache, the page's defaults: cap 1e6 games
per side, W = 1 pp, the --until-ci chunk), and the server's memory (RSS) after 30
comparisons.

The server runs in this process (uvicorn on a free port, in a thread) and is driven over
HTTP exactly as the page drives it (POST /api/run, then GET /api/run/ID every 0.3 s), so
the RSS read from /proc/self/status is the server's.

    python benchmarks/workbench.py                      # 3 fresh servers + 30 comparisons
    python benchmarks/workbench.py --fresh 1 --comparisons 5 --card TE7 --value 12

Run it once beforehand (or any `simulate --games 1000`) so the numba cache is warm.
The figures replace benchmarks/results/workbench.md (with the command, machine and date).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_server(start_dir: Path, threads: int | None):
    from sim.workbench.bench import Settings
    from sim.workbench.server import make_server

    settings = Settings(start_dir=start_dir, game="peer-to-peer", threads=threads)
    server, sock, address = make_server(settings, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return server, thread, address


def one_card_edit(state: dict, card: str, value: str, players: int) -> dict:
    columns = state["cards"]["columns"]
    rows = [list(r) for r in state["cards"]["rows"]]
    row = next(r for r in rows if r[columns.index("id")] == card)
    row[columns.index("value")] = value
    return {"game": state["game"], "players": [players], "cards": {"columns": columns,
                                                                  "rows": rows},
            "rules": {o["key"]: o["value"] for o in state["rules"]}, "strategies": {}}


def compare_once(client, address: str, body: dict, page: str) -> dict:
    started = time.monotonic()
    answer = client.post(address + "api/run", json={**body, "page": page})
    answer.raise_for_status()
    ident = answer.json()["id"]
    while True:
        snap = client.get(address + f"api/run/{ident}").json()
        if snap["state"] not in ("starting", "running"):
            snap["wall_seconds"] = time.monotonic() - started
            return snap
        time.sleep(0.3)


def fresh(args) -> dict:
    """One fresh server: seconds from Run to the verdict of its first comparison."""
    import httpx2

    with tempfile.TemporaryDirectory() as start:
        server, thread, address = start_server(Path(start), args.threads)
        with httpx2.Client(timeout=60) as client:
            state = client.get(address + "api/state").json()
            body = one_card_edit(state, args.card, args.value, 4)
            snap = compare_once(client, address, body, "benchmark-page-0")
        server.should_exit = True
        thread.join(timeout=60)
    return {"seconds": snap["wall_seconds"], "state": snap["state"],
            "games_per_side": snap["games_per_side"], "looks": snap["looks"]}


def many(args) -> dict:
    import httpx2

    with tempfile.TemporaryDirectory() as start:
        server, thread, address = start_server(Path(start), args.threads)
        rss = {"start": rss_mb()}
        seconds = []
        with httpx2.Client(timeout=60) as client:
            state = client.get(address + "api/state").json()
            body = one_card_edit(state, args.card, args.value, 4)
            for number in range(1, args.comparisons + 1):
                snap = compare_once(client, address, body, "benchmark-page-1")
                seconds.append(snap["wall_seconds"])
                if number in (1, 10, args.comparisons):
                    rss[f"after_{number}"] = rss_mb()
        server.should_exit = True
        thread.join(timeout=60)
    return {"rss_mb": {k: round(v, 1) for k, v in rss.items()},
            "seconds_median": round(statistics.median(seconds), 3),
            "seconds_first": round(seconds[0], 3), "comparisons": args.comparisons,
            "last_state": snap["state"], "last_games_per_side": snap["games_per_side"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", type=int, default=3, help="fresh servers to time (median)")
    parser.add_argument("--comparisons", type=int, default=30)
    parser.add_argument("--card", default="TE7")
    parser.add_argument("--value", default="12")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--one-fresh", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_fresh:
        print(json.dumps(fresh(args)))
        return
    runs = []
    for _ in range(args.fresh):  # each in its own process: numba's cache loaded from disk
        out = subprocess.run([sys.executable, __file__, "--one-fresh", "--card", args.card,
                              "--value", args.value]
                             + (["--threads", str(args.threads)] if args.threads else []),
                             capture_output=True, text=True, check=True, env=os.environ)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print("fresh server:", runs[-1], flush=True)
    result = {"first_verdict_seconds_fresh_server": [round(r["seconds"], 3) for r in runs],
              "median": round(statistics.median(r["seconds"] for r in runs), 3) if runs else None,
              "threads": args.threads or os.cpu_count(), "card": f"{args.card}.value={args.value}"}
    print(json.dumps(result), flush=True)
    lines = ["| measure | value |", "|---|---|",
             f"| change compared | {result['card']}, 4 players, the page's defaults |",
             f"| seconds to the first verdict, fresh server (median of {len(runs)}) | "
             f"{result['median']} s (each: {', '.join(str(x) for x in result['first_verdict_seconds_fresh_server'])}) |",
             f"| kernel threads | {result['threads']} |"]
    if args.comparisons:
        repeated = many(args)
        print(json.dumps(repeated), flush=True)
        lines += [f"| comparisons on one server | {repeated['comparisons']} (median "
                  f"{repeated['seconds_median']} s each, first {repeated['seconds_first']} s) |"]
        lines += [f"| server RSS, {key.replace('_', ' ')} | {mb} MB |"
                  for key, mb in repeated["rss_mb"].items()]
    from benchmarks.latest import write

    write("workbench", "The workbench: first verdict and memory", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
