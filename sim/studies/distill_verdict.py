"""Which distilled result ships: the keep rule of ``simulate distill``'s final check.

The check plays the result against its starting base and each other shipped strategy
(the field), and the base against the field on the same deals. A count where the base or a
field strategy that the base beats beats the result beyond its 95 % interval is reported
(``beaten_by``, ``why_kept`` in words); with ``--per-count`` that count keeps the base's
weights, and so does a count where the result wins less than ``KEEP_SHARE`` of the decided
games against the base, unless it dominates the base there (``_dominates``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

# --per-count keeps a count's result only where it wins at least this share of the decided
# games against the base (the bar a new default must clear, docs/strategies.md) or
# dominates the base (beaten_by)
KEEP_SHARE = 0.55


def tally_shares(tally: Any, fair_share: float) -> dict[str, Any]:
    """A tally's games, wins and share of the decided games with its Wilson interval."""
    from sim.core.stats import wilson

    decided = tally.wins + tally.rival_wins
    share, low, high = wilson(tally.wins, decided) if decided else (float("nan"),) * 3
    return {"games": tally.games, "wins": tally.wins, "rival_wins": tally.rival_wins,
            "share": float(share), "share_low": float(low), "share_high": float(high),
            "fair_share": float(fair_share)}


def loses(row: Mapping[str, Any]) -> bool:
    """Beaten beyond the 95 % interval: the share of the decided games below the fair one."""
    return row["share_high"] < row["fair_share"]


def _short_of(row: Mapping[str, Any], min_share: float | None) -> bool:
    """Does the result fall short against its base: beaten by it, or (given ``min_share``)
    winning less than that share of the decided games in a pairing? With more than two
    sides (one seat against several base seats, fair share f) that is the share that
    wins ``min_share`` against each base seat: m f / (m f + (1 - m)(1 - f)), which is m
    at f = 1/2."""
    if min_share is None:
        return loses(row)
    f = row["fair_share"]
    bar = min_share * f / (min_share * f + (1 - min_share) * (1 - f))
    return not row["share"] >= bar


def _dominates(check: Mapping[str, Any], players: str, row: Mapping[str, Any]) -> bool:
    """Is the result better than its base at ``players`` by every measure of the check:
    beating the base beyond the interval, and against each field strategy on the same
    deals no worse than the base beyond both intervals (the result's top at least the
    base's bottom)? A small win that costs nothing elsewhere needs no wide margin; without
    field strategies only the head-to-head is measured, and the bar decides."""
    field = check.get("field") or {}
    if not field or not row["share_low"] > row["fair_share"]:
        return False
    base_field = check.get("base_field") or {}
    for name, result in field.items():
        mine = result["players"].get(players)
        base_row = base_field.get(name, {}).get("players", {}).get(players)
        if mine is None or base_row is None or mine["share_high"] < base_row["share_low"]:
            return False
    return True


def beaten_by(check: Mapping[str, Any], min_share: float | None = None
              ) -> dict[int, list[str]]:
    """Per player count, the opponents of a check that make the result worse than its base
    there: the base itself when it beats the result (or, given ``min_share``, when the
    result wins less than that share of the decided games against it and does not
    dominate it, _dominates), and each field strategy that beats the result but not the
    base."""
    beaten: dict[int, list[str]] = {}
    for players, row in (check.get("players") or {}).items():
        if _short_of(row, min_share) and not (min_share is not None
                                              and _dominates(check, players, row)):
            beaten.setdefault(int(players), []).append(check["opponent"])
    base_field = check.get("base_field") or {}
    for name, result in (check.get("field") or {}).items():
        for players, row in result["players"].items():
            base_row = base_field.get(name, {}).get("players", {}).get(players)
            if loses(row) and not (base_row and loses(base_row)):
                beaten.setdefault(int(players), []).append(name)
    return dict(sorted(beaten.items()))


def why_kept(beaten: Mapping[int, Sequence[str]], base: str | None,
             min_share: float | None) -> str:
    """beaten_by's answer in words: per count, against whom the result fell short."""
    def reason(name: str) -> str:
        if name == base:
            return (f"short of {min_share:.0%} against {name} and not better than it by "
                    f"every measure" if min_share is not None
                    else f"beaten by its base {name}")
        return f"beaten by {name} (which the base beats)"
    return "; ".join(f"at {p} players {', '.join(reason(n) for n in names)}"
                     for p, names in beaten.items())
