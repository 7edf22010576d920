"""Per-card fight columns for runs made before a game's kernel wrote them, for a game
whose description has ``card_fights`` (``sim.core.game.CardFightReplay``; PLAI's:
sim/games/plai/fight_stats.py).

The engine writes ``<field>_<k>`` for every field of ``card_fights.fields`` and every game
(k = card index; reports.load re-indexes them into ``RunSet.card_ids``; PLAI:
``card_att_<k>``, ``card_att_won_<k>``, ``card_def_<k>``, ``card_def_won_<k>``), so the
report uses every game. Older run directories lack these columns: for those runs only,
the first ``sample`` games (by game index) are replayed from their manifest (same seed,
cards, rules and strategies) and their counts filled in; their other games stay null and
the report says how many games it used. A replay that does not reproduce a game (a
different ``check_column``, PLAI's turn count) or a run that cannot be rebuilt (its card
file moved) is skipped and named in ``RunSet.notes``.
"""
from __future__ import annotations

import polars as pl

from sim.core.errors import UserError

DEFAULT_SAMPLE = 2000


def _runs_without_columns(rs, first: str) -> list[int]:
    """Indices of the runs whose games carry no per-card fight counts (read from each
    run's Parquet schema, so nothing of the merged table is copied)."""
    from pathlib import Path

    out = []
    for k, run in enumerate(rs.runs):
        parts = sorted(Path(run.path, "games").glob("*.parquet"))
        names = pl.read_parquet_schema(parts[0]).keys() if parts else ()
        if not any(name.startswith(first) for name in names):
            out.append(k)
    return out


def attach_card_fights(rs, sample: int = DEFAULT_SAMPLE) -> None:
    """Replay up to ``sample`` games of every run without per-card fight columns and
    fill their counts into ``rs.games`` (in place)."""
    from sim.core.game import resolve_game
    from sim.runs.setup import configure_from_manifest

    fights = resolve_game(rs.game).card_fights
    columns = set(rs.columns)
    if fights is None or not {"run", "game_index", fights.check_column} <= columns:
        return
    check_column, replayed = fights.check_column, f"replay_{fights.check_column}"
    parts = []
    for k in _runs_without_columns(rs, f"{fights.fields[0]}_"):
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
        table = fights.replay(config, int(m["seed"]), indices)
        check = games.select("game_index", check_column).join(
            table.select("game_index", replayed).lazy(), on="game_index").collect()
        if (check[check_column] != check[replayed]).any():
            rs.notes.append(f"{run.path}: per-card fight counts skipped (a replayed game "
                            "differs from the stored one; was the simulator changed?)")
            continue
        rs.notes.append(f"{run.path} has no per-card fight columns (made before the engine "
                        f"wrote them): its card fight counts come from its first "
                        f"{len(indices):,} games, replayed.")
        ids = [str(i) for i in m["cards"].get("ids", [])]
        rename = {f"{name}_{j}": f"{name}_{rs.card_ids.index(cid)}"
                  for name in fights.fields for j, cid in enumerate(ids)}
        table = table.select("game_index", *rename).rename(rename)
        parts.append(table.with_columns(pl.lit(k, dtype=pl.Int32).alias("run")))
    if not parts:
        return
    counts = pl.concat(parts, how="diagonal_relaxed")
    new = [col for col in counts.columns if col not in ("game_index", "run")]
    counts = counts.with_columns(pl.col(new).fill_null(0))
    clash = [col for col in new if col in columns]
    games = rs.games.join(counts.rename({col: col + "__replay" for col in clash}).lazy(),
                          on=["run", "game_index"], how="left")
    rs.games = games.with_columns(
        pl.coalesce(pl.col(col), pl.col(col + "__replay")).alias(col) for col in clash
    ).drop([col + "__replay" for col in clash])
