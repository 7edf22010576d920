"""The run summary's main cause: when a run's balance answer has an edge (its interval
excludes the even point), replay a sample of its games under each swap the game declares
(sim.core.attribution) and name the swap that accounts for the most of it.

The sample is the run's lowest game indices, sized so that the replays take about
SUMMARY_FRACTION of the run's own time (at least a couple of thousand games, at most the
run); the summary says how many games each swap replayed. The report does the same with
the whole of the run's time (reports/attribution.py).
"""
from __future__ import annotations

from typing import Any

SUMMARY_FRACTION = 0.25


def edge_excluded(balance: dict[str, Any] | None) -> bool:
    """Does the balance answer claim an edge (sim.core.wording.claims_edge)?"""
    from sim.core.wording import claims_edge

    return bool(balance) and claims_edge(balance.get("verdict"), balance["lo"],
                                         balance["hi"], balance["even"])


def explain_summary(result, fraction: float = SUMMARY_FRACTION,
                    threads: int | None = None) -> dict[str, Any] | None:
    """Add ``causes``, ``main_cause`` and ``replayed`` (games per swap) to the balance
    answer of ``result.summary`` (a RunResult of sim.runs.setup) when it has an edge;
    returns that answer (None when there is nothing to explain)."""
    import polars as pl

    from sim.core.attribution import explain_run, main_cause
    from sim.core.game import resolve_game
    from sim.core.inputs import default_threads

    config, summary = result.config, result.summary
    game = resolve_game(result.manifest["game"])
    measure = game.balance_measure(config.players, summary)
    if measure is None:
        return None
    balance = summary.get(measure.key)
    if not edge_excluded(balance):
        return balance
    swaps = game.swaps
    games = pl.scan_parquet(str(result.run_dir / "games" / "*.parquet"))
    causes, replayed = explain_run(
        config, int(result.manifest["seed"]), games, measure, swaps, fraction=fraction,
        threads=threads or default_threads())
    balance["causes"] = [c.as_dict() for c in causes]
    balance["replayed"] = replayed
    main = main_cause(causes)
    balance["main_cause"] = main.as_dict() if main is not None else None
    _rewrite_summary(result)
    return balance


def _rewrite_summary(result) -> None:
    """summary.json with the causes (as sim.runs.setup.finish wrote it, plus them)."""
    import json

    from sim.runs import rundir

    summary = rundir.to_jsonable(result.summary)
    path = result.run_dir / "summary.json"
    try:
        rundir.atomic_write_text(path, json.dumps(summary, indent=2,
                                                  default=rundir.json_default) + "\n")
    except OSError as exc:
        raise rundir.output_error(exc, result.run_dir, "writing summary.json") from None
