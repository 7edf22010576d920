"""Helpers shared by the PLAI metric modules (not a metric itself)."""
from __future__ import annotations

import numpy as np
import polars as pl

from sim.core.stats import ratio_ci

# outcome codes: the game's own (sim/games/plai/constants.py; its Game.outcome_codes)
from sim.games.plai.constants import MAX_SEATS, OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE  # noqa: F401


def ratio_aggs(x: pl.Expr, y: pl.Expr, stem: str) -> list[pl.Expr]:
    """Per-group sums for ``with_ratio`` (sum x / sum y with games as the sampling unit)."""
    x, y = x.cast(pl.Float64), y.cast(pl.Float64)
    return [x.sum().alias(f"_{stem}_x"), (x * x).sum().alias(f"_{stem}_xx"),
            (x * y).sum().alias(f"_{stem}_xy"), y.sum().alias(f"_{stem}_y"),
            (y * y).sum().alias(f"_{stem}_yy"), pl.len().alias(f"_{stem}_n")]


def with_ratio(df: pl.DataFrame, stem: str, z: float) -> pl.DataFrame:
    """Turn the ``ratio_aggs`` sums into ``<stem>_rate``, ``<stem>_lo``, ``<stem>_hi``
    (delta-method interval of sim.core.stats.ratio_ci) and drop the sums."""
    cols = [f"_{stem}_{s}" for s in ("x", "xx", "xy", "y", "yy", "n")]
    if df.height == 0:
        return df.drop(cols).with_columns(*(pl.lit(None, dtype=pl.Float64).alias(f"{stem}_{s}")
                                            for s in ("rate", "lo", "hi")))
    r, lo, hi = ratio_ci(*(df[c].to_numpy() for c in cols), z=z)
    return df.drop(cols).with_columns(pl.Series(f"{stem}_rate", np.atleast_1d(r)),
                                      pl.Series(f"{stem}_lo", np.atleast_1d(lo)),
                                      pl.Series(f"{stem}_hi", np.atleast_1d(hi)))
