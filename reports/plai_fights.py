"""PLAI: per-card fight columns for runs made before the kernel wrote them.

The engine writes ``card_att_<k>``, ``card_att_won_<k>``, ``card_def_<k>`` and
``card_def_won_<k>`` for every game (k = card index; reports.load re-indexes them into
``RunSet.card_ids``), so the report uses every game. Older run directories lack these
columns: for those runs only, the first ``sample`` games (by game index) are replayed
from their manifest (same seed, cards, rules and strategies; see
sim.games.plai.fight_stats) and their counts filled in; their other games stay null and
the report says how many games it used. A replay that does not reproduce a game
(different turn count) or a run that cannot be rebuilt (its card file moved) is skipped
and named in ``RunSet.notes``.
"""
from __future__ import annotations

import polars as pl

from sim.core.errors import UserError

DEFAULT_SAMPLE = 2000
PREFIXES = ("card_att_", "card_att_won_", "card_def_", "card_def_won_")


def _runs_without_columns(rs) -> list[int]:
    """Indices of the runs whose games carry no per-card fight counts (read from each
    run's Parquet schema, so nothing of the merged table is copied)."""
    from pathlib import Path

    out = []
    for k, run in enumerate(rs.runs):
        parts = sorted(Path(run.path, "games").glob("*.parquet"))
        names = pl.read_parquet_schema(parts[0]).keys() if parts else ()
        if not any(name.startswith("card_att_") for name in names):
            out.append(k)
    return out


def attach_card_fights(rs, sample: int = DEFAULT_SAMPLE) -> None:
    """Replay up to ``sample`` games of every run without per-card fight columns and
    fill their counts into ``rs.games`` (in place)."""
    from sim.core.game import game_hook
    from sim.games.plai.fight_stats import FIELDS, card_fight_table
    from sim.runs.setup import configure_from_manifest

    columns = set(rs.columns)
    if not game_hook(rs.game, "report_card_fights") or not {"run", "game_index",
                                                             "turns"} <= columns:
        return
    parts = []
    for k in _runs_without_columns(rs):
        run = rs.runs[k]
        m = run.manifest
        games = rs.games.filter(pl.col("run") == k)
        indices = (games.select("game_index").bottom_k(sample, by="game_index")
                   .collect(engine="streaming")["game_index"].sort().to_list())
        if not indices:
            continue
        try:
            config = configure_from_manifest(m)
        except (UserError, KeyError) as exc:
            rs.notes.append(f"{run.path}: per-card fight counts skipped (cannot rebuild the "
                            f"run's configuration: {exc})")
            continue
        table = card_fight_table(config, int(m["seed"]), indices)
        check = games.select("game_index", "turns").join(
            table.select("game_index", "replay_turns").lazy(), on="game_index").collect()
        if (check["turns"] != check["replay_turns"]).any():
            rs.notes.append(f"{run.path}: per-card fight counts skipped (a replayed game "
                            "differs from the stored one; was the simulator changed?)")
            continue
        rs.notes.append(f"{run.path} has no per-card fight columns (made before the engine "
                        f"wrote them): its card fight counts come from its first "
                        f"{len(indices):,} games, replayed.")
        ids = [str(i) for i in m["cards"].get("ids", [])]
        rename = {f"{name}_{j}": f"{name}_{rs.card_ids.index(cid)}"
                  for name in FIELDS for j, cid in enumerate(ids)}
        table = table.drop("replay_turns", "fights", "fights_att_won").rename(rename)
        parts.append(table.with_columns(pl.lit(k, dtype=pl.Int32).alias("run")))
    if not parts:
        return
    fights = pl.concat(parts, how="diagonal_relaxed")
    fights = fights.with_columns(pl.col("^card_.*$").fill_null(0))
    new = [col for col in fights.columns if col.startswith("card_")]
    clash = [col for col in new if col in columns]
    games = rs.games.join(fights.rename({col: col + "__replay" for col in clash}).lazy(),
                          on=["run", "game_index"], how="left")
    rs.games = games.with_columns(
        pl.coalesce(pl.col(col), pl.col(col + "__replay")).alias(col) for col in clash
    ).drop([col + "__replay" for col in clash])
