"""Helpers shared by the PLAI metric modules (not a metric itself)."""
from __future__ import annotations

import numpy as np
import polars as pl

from sim.core.stats import ratio_ci

PLAI = ("plai",)

# outcome codes (sim.games.plai.constants.OUT_*; data contract of the per-game table)
OUT_SEAT, OUT_MAINTAINERS, OUT_STALEMATE = 0, 1, 2
MAX_SEATS = 5


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


def pairing(manifest: dict) -> str:
    """A short label for a PLAI run's seats, from the specs as given (the manifest's
    strategies also list every default weight): "weighted x4" or "bluffer:rate=0.3 vs
    cautious vs cautious"."""
    from sim.core.strategy import seat_specs
    from sim.games.plai.game import DEFAULT_KEYS, DEFAULT_STRATEGY

    request = (manifest.get("request") or {}).get("strategies") or None
    try:
        specs = list(seat_specs(int(manifest["players"]), request, DEFAULT_STRATEGY,
                                DEFAULT_KEYS).values())
    except Exception:  # noqa: BLE001 - an odd manifest still gets a label
        specs = [str(v.get("name", "?")) if isinstance(v, dict) else str(v)
                 for v in (manifest.get("strategies") or {}).values()]
    if specs and len(set(specs)) == 1:
        return f"{specs[0]} x{len(specs)}"
    return " vs ".join(specs)
