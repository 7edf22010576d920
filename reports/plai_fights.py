"""PLAI: add per-card fight columns to a merged games table (see sim.games.plai.fight_stats).

The engine's per-game table has no per-card fight data, so for PLAI reports the first
``sample`` games of every run (by game index) are replayed from their manifest (same seed,
cards, rules and strategies) and their ``card_att_<k>``, ``card_att_won_<k>``,
``card_def_<k>``, ``card_def_won_<k>`` columns (k = index into ``RunSet.card_ids``) are
joined in; other games get nulls. Runs whose games table already has these columns are
left alone. A replay that does not reproduce a game (different turn count) or a run
that cannot be rebuilt (its card file moved) is skipped and named in ``RunSet.notes``.
"""
from __future__ import annotations

import polars as pl

from sim.errors import UserError

DEFAULT_SAMPLE = 2000
PREFIXES = ("card_att_", "card_att_won_", "card_def_", "card_def_won_")


def attach_card_fights(rs, sample: int = DEFAULT_SAMPLE) -> None:
    """Replay up to ``sample`` games per run and join their per-card fight columns into
    ``rs.games`` (in place)."""
    from sim import api
    from sim.games.plai.fight_stats import FIELDS, card_fight_table

    columns = set(rs.games.columns)
    if rs.game != "plai" or any(col.startswith("card_att_") for col in columns) \
            or not {"run", "game_index", "turns"} <= columns:
        return
    parts = []
    for k, run in enumerate(rs.runs):
        m = run.manifest
        games = rs.games.filter(pl.col("run") == k)
        indices = games["game_index"].sort().head(sample).to_list()
        if not indices:
            continue
        try:
            config = api._configure(api.resolve_game("plai"), int(m["players"]), m["request"])
        except (UserError, KeyError) as exc:
            rs.notes.append(f"{run.path}: per-card fight counts skipped (cannot rebuild the "
                            f"run's configuration: {exc})")
            continue
        table = card_fight_table(config, int(m["seed"]), indices)
        check = games.select("game_index", "turns").join(table.select("game_index", "replay_turns"),
                                                         on="game_index")
        if (check["turns"] != check["replay_turns"]).any():
            rs.notes.append(f"{run.path}: per-card fight counts skipped (a replayed game "
                            "differs from the stored one; was the simulator changed?)")
            continue
        ids = [str(i) for i in m["cards"].get("ids", [])]
        rename = {f"{name}_{j}": f"{name}_{rs.card_ids.index(cid)}"
                  for name in FIELDS for j, cid in enumerate(ids)}
        table = table.drop("replay_turns", "fights", "fights_att_won").rename(rename)
        parts.append(table.with_columns(pl.lit(k, dtype=pl.Int32).alias("run")))
    if not parts:
        return
    fights = pl.concat(parts, how="diagonal_relaxed")
    fights = fights.with_columns(pl.col("^card_.*$").fill_null(0))
    rs.games = rs.games.join(fights, on=["run", "game_index"], how="left")
