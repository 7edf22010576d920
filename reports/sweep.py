"""The sweep view of an experiment: every metric against the swept parameter, with
interval bands, a table, and paired differences against the baseline point.

Metrics here are per-game averages or ratios of per-game sums (``sum x / sum y`` over
games), so one method gives every interval:

* a point's own interval: Wilson for rates (x and y are 0/1 per game), a normal
  interval for means;
* **paired differences** against the baseline point of the same player count: every
  point plays the same (seed, game index) streams (common random numbers), so the games
  are paired. With the linearised per-game influence ``u_i = (x_i - R y_i) / mean(y)`` of
  each point, the difference ``R_p - R_b`` has standard error ``sd(u_p - u_b) / sqrt(n)``
  (delta method, games as the sampling unit). The unpaired standard error,
  ``sqrt(var(u_p)/n + var(u_b)/n)``, is shown next to it: the paired one is narrower by
  as much as the two points' games are alike.

Rates are shown in percent, differences and imbalance in percentage points.
"""
from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any, Callable

import numpy as np

from reports.tables import html_table, markdown_table

# The outcome codes are each game's own (defined once, in its constants module); which
# metrics apply to a game is its ``sweep_metrics`` hook.
from sim.games.peer_to_peer.constants import ALL_LOSE, DRAW, SOLO_WIN, WIN_A, WIN_B
from sim.games.plai.constants import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE

# the per-game columns the metrics read: a table with an ``outcome`` column (PLAI's) has
# its seat metrics' columns too
COLUMNS = ("game_index", "winner", "rounds")
OUTCOME_COLUMNS = ("game_index", "winner", "outcome", "turns", "first_seat", "players")


@dataclass(frozen=True)
class SweepMetric:
    name: str
    title: str
    unit: str            # '%', 'pp' or 'rounds'
    kind: str            # 'rate' (x, y in {0, 1}) or 'mean'
    scale: float         # display = scale * (ratio + offset)
    offset: float
    xy: Callable[[dict], tuple[np.ndarray, np.ndarray]]
    description: str


def _ind(mask) -> np.ndarray:
    return np.asarray(mask, dtype=np.float64)


def _ones(g):
    return np.ones(len(g["winner"]), dtype=np.float64)


METRICS: dict[str, SweepMetric] = {m.name: m for m in (
    SweepMetric("a_share", "Team A's share of team wins", "%", "rate", 100.0, 0.0,
                lambda g: (_ind(g["winner"] == WIN_A), _ind(np.isin(g["winner"], (WIN_A, WIN_B)))),
                "Among games a team won, the share team A won (50 % is even; with 3 and 5 "
                "players team A is the larger team)."),
    SweepMetric("imbalance", "Imbalance: team A's share of team wins minus 50 %", "pp", "rate",
                100.0, -0.5,
                lambda g: (_ind(g["winner"] == WIN_A), _ind(np.isin(g["winner"], (WIN_A, WIN_B)))),
                "a_share - 50 %, in percentage points; positive favours team A (the larger "
                "team at 3 and 5 players)."),
    SweepMetric("a_win_rate", "Team A win rate", "%", "rate", 100.0, 0.0,
                lambda g: (_ind(np.isin(g["winner"], (WIN_A, SOLO_WIN))), _ones(g)),
                "Share of all games won by team A (solo wins count for A)."),
    SweepMetric("b_win_rate", "Team B win rate", "%", "rate", 100.0, 0.0,
                lambda g: (_ind(g["winner"] == WIN_B), _ones(g)),
                "Share of all games won by team B."),
    SweepMetric("all_lose_rate", "All-lose rate", "%", "rate", 100.0, 0.0,
                lambda g: (_ind(g["winner"] == ALL_LOSE), _ones(g)),
                "Share of games everyone loses to unhappy customers."),
    SweepMetric("draw_rate", "Draw rate", "%", "rate", 100.0, 0.0,
                lambda g: (_ind(g["winner"] == DRAW), _ones(g)), "Share of drawn games."),
    SweepMetric("mean_rounds", "Mean game length", "rounds", "mean", 1.0, 0.0,
                lambda g: (np.asarray(g["rounds"], dtype=np.float64), _ones(g)),
                "Rounds per game."),
)}


def _seat_metric(seat: int) -> SweepMetric:
    def xy(g):
        won = _ind((g["outcome"] == OUT_SEAT) & (g["winner"] == seat))
        # games with no seat ``seat`` (fewer players) are not in the denominator, so the
        # metric is n/a rather than 0 % at a player count without that seat
        present = _ind(g["players"] > seat) if "players" in g else _ones(g)
        return won * present, present

    return SweepMetric(f"seat{seat}_win_rate", f"Seat {seat} win rate", "%", "rate", 100.0, 0.0,
                       xy, f"Share of all games seat {seat} won (PLAI; n/a where the game has "
                       f"no seat {seat}).")


def _first_player(g):
    won = g["outcome"] == OUT_SEAT
    first = won & (g["winner"] == g["first_seat"])
    return _ind(first), _ind(won)


def _place_advantage(place: str):
    """x, y with sum x / sum y = (the share of startup wins taken by the seat that moved
    first, or last, in turn order) - 1/players: 0 when fair at any player count."""
    def xy(g):
        won = g["outcome"] == OUT_SEAT
        players = np.asarray(g["players"], dtype=np.int64)
        seat = g["first_seat"] if place == "first" else (g["first_seat"] + players - 1) % players
        return _ind(won & (g["winner"] == seat)) - _ind(won) / players, _ind(won)
    return xy


PLAI_METRICS = (
    *[_seat_metric(s) for s in range(5)],
    SweepMetric("first_player_share", "First player's share of startup wins", "%", "rate",
                100.0, 0.0, _first_player,
                "Among games a startup won, the share the seat that moved first won (PLAI; "
                "fair = 100/players)."),
    SweepMetric("first_player_advantage", "First player's advantage", "pp", "mean", 100.0,
                0.0, _place_advantage("first"),
                "The first mover's share of startup wins minus the fair share 100/players, in "
                "percentage points (0 is fair at every player count; PLAI). Delta-method "
                "interval."),
    SweepMetric("last_player_advantage", "Last player's advantage", "pp", "mean", 100.0,
                0.0, _place_advantage("last"),
                "The share of startup wins taken by the seat that moves last in turn order, "
                "minus 100/players, in percentage points (0 is fair; PLAI)."),
    SweepMetric("maintainers_win_rate", "Maintainers' win rate", "%", "rate", 100.0, 0.0,
                lambda g: (_ind(g["outcome"] == OUT_MAINTAINERS), _ones(g)),
                "Share of games every startup went bankrupt (PLAI-T6)."),
    SweepMetric("stalemate_rate", "Stalemate rate", "%", "rate", 100.0, 0.0,
                lambda g: (_ind(g["outcome"] == OUT_STALEMATE), _ones(g)),
                "Share of games that reached max_turns (PLAI-T6)."),
    SweepMetric("mean_turns", "Mean game length", "turns", "mean", 1.0, 0.0,
                lambda g: (np.asarray(g["turns"], dtype=np.float64), _ones(g)),
                "Turns per game (PLAI)."),
)
METRICS.update({m.name: m for m in PLAI_METRICS})


def default_metrics(game: str, players=()) -> tuple[str, ...]:
    """The sweep report's metrics when an experiment names none (the game's
    ``default_sweep_metrics`` hook, e.g. PLAI's every seat of the largest player count)."""
    from sim.core.game import game_hook

    return tuple(game_hook(game, "default_sweep_metrics")(tuple(players or ())))


def metrics_for(game: str) -> list[str]:
    """Names of the metrics that apply to ``game`` (its ``sweep_metrics`` hook), in the
    order of METRICS."""
    from sim.core.game import game_hook

    wanted = set(game_hook(game, "sweep_metrics"))
    unknown = wanted - set(METRICS)
    if unknown:
        raise ValueError(f"game '{game}' names unknown sweep metrics: {', '.join(sorted(unknown))}")
    return [name for name in METRICS if name in wanted]


def z_for(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


# ----------------------------------------------------------------------------- loading
def load_games(run_dir: str | Path) -> dict[str, np.ndarray]:
    """The columns the sweep metrics read (game_index, winner and rounds; for PLAI
    outcome, turns, first_seat and players), sorted by game index, in memory (a report
    reads a run through :class:`RunGames` instead, block by block)."""
    import polars as pl

    scan = pl.scan_parquet(str(Path(run_dir) / "games" / "*.parquet"))
    return frame_games(scan.select(_columns(scan.collect_schema().names())).collect())


BLOCK = 1 << 20   # games read at a time from a run directory


class RunGames:
    """A run directory's games for the sweep metrics, read part by part: each parquet part
    (the engine writes one per chunk of consecutive game indices), or a slice of at most
    ``block`` game indices of a larger one, at a time. So the sweep report's memory does
    not grow with the run. :func:`estimate` and :func:`paired` accept it where they accept
    the arrays of :func:`load_games`; the numbers are the same (sums in another order:
    standard errors to the last digits)."""

    def __init__(self, run_dir: str | Path, block: int = BLOCK):
        import polars as pl

        self.run_dir = Path(run_dir)
        self.block = int(block)
        index = pl.col("game_index")
        self.parts = []                       # (first index, last index, games, path)
        for path in sorted((self.run_dir / "games").glob("*.parquet")):
            lo, hi, n = pl.scan_parquet(path).select(index.min().alias("lo"), index.max().alias("hi"),
                                                     pl.len()).collect().row(0)
            if n:
                self.parts.append((lo, hi, n, path))
        if not self.parts:
            raise ValueError(f"{self.run_dir}: no games")
        self.parts.sort()
        self.columns = _columns(pl.read_parquet_schema(self.parts[0][3]).keys())
        self.first = self.parts[0][0]
        self.last = max(hi for _, hi, _, _ in self.parts)
        self.games = sum(n for _, _, n, _ in self.parts)

    def __len__(self) -> int:
        return self.games

    def ranges(self) -> list[tuple[int, int]]:
        """[start, stop) game-index ranges covering the run: its parts (overlapping ones
        merged), each cut into slices of at most ``block`` indices."""
        merged: list[list[int]] = []
        for lo, hi, _, _ in self.parts:
            if merged and lo < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi + 1)
            else:
                merged.append([lo, hi + 1])
        return [(a, min(a + self.block, stop)) for start, stop in merged
                for a in range(start, stop, self.block)]

    def block_of(self, start: int, stop: int) -> dict[str, np.ndarray]:
        """The games with start <= game_index < stop, read from the parts that hold them."""
        import polars as pl

        paths = [path for lo, hi, _, path in self.parts if lo < stop and hi >= start]
        index = pl.col("game_index")
        return frame_games(pl.scan_parquet(paths or [self.parts[0][3]])
                           .filter((index >= start) & (index < stop))
                           .select(self.columns).collect())


class _InMemory:
    """Arrays of :func:`load_games` as one block (to pair them with a RunGames)."""

    def __init__(self, games: dict):
        self.g = games
        self.games = len(games["game_index"])
        index = games["game_index"]
        self.first, self.last = (int(index[0]), int(index[-1])) if self.games else (0, -1)

    def ranges(self):
        return [(self.first, self.last + 1)] if self.games else []

    def block_of(self, start: int, stop: int) -> dict[str, np.ndarray]:
        index = self.g["game_index"]
        a, b = np.searchsorted(index, start), np.searchsorted(index, stop)
        return {k: v[a:b] for k, v in self.g.items()}


def _source(games):
    return games if isinstance(games, RunGames) else _InMemory(games)


def game_count(games) -> int:
    return len(games) if isinstance(games, RunGames) else len(games["winner"])


def _columns(names) -> list[str]:
    wanted = OUTCOME_COLUMNS if "outcome" in names else COLUMNS
    return [c for c in wanted if c in names]


def frame_games(frame) -> dict[str, np.ndarray]:
    frame = frame.select(_columns(frame.columns)).sort("game_index")
    return {name: frame[name].to_numpy() for name in frame.columns}


def concat_games(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


# ----------------------------------------------------------------------------- intervals
def _influence(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    sy = float(np.sum(y))
    if sy <= 0:
        return math.nan, np.full(len(x), math.nan)
    ratio = float(np.sum(x)) / sy
    return ratio, (x - ratio * y) / (sy / len(x))


def estimate(metric: str | SweepMetric, games: dict, z: float = 1.959964) -> dict[str, float]:
    """The metric with its interval (display units): {est, lo, hi, n}; n counts the
    games in the denominator (decisive games for a_share)."""
    from sim.core.stats import wilson

    m = METRICS[metric] if isinstance(metric, str) else metric
    if isinstance(games, RunGames):
        return streamed_estimates([m], games, z)[m.name]
    x, y = m.xy(games)
    n = int(np.sum(y))
    if m.kind == "rate":
        p, lo, hi = wilson(int(np.sum(x)), n, z) if n else (math.nan,) * 3
    else:
        p, u = _influence(x, y)
        half = z * float(np.std(u, ddof=1)) / math.sqrt(len(u)) if len(u) > 1 else math.nan
        lo, hi = p - half, p + half
    f = lambda v: m.scale * (v + m.offset)  # noqa: E731
    return {"est": f(p), "lo": f(lo), "hi": f(hi), "n": n}


def paired(metric: str | SweepMetric, games: dict, base: dict, z: float = 1.959964) -> dict[str, float]:
    """point - baseline on the same games: the paired (CRN) interval and, for comparison,
    the interval that treats the two samples as independent."""
    m = METRICS[metric] if isinstance(metric, str) else metric
    if isinstance(games, RunGames) or isinstance(base, RunGames):
        return streamed_paired([m], games, base, z)[m.name]
    if len(games["game_index"]) != len(base["game_index"]) or not np.array_equal(
            games["game_index"], base["game_index"]):
        raise ValueError("paired differences need the same game indices in both points")
    xp, yp = m.xy(games)
    xb, yb = m.xy(base)
    rp, up = _influence(xp, yp)
    rb, ub = _influence(xb, yb)
    n = len(up)
    diff = m.scale * (rp - rb)
    se_paired = float(np.std(up - ub, ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    se_unpaired = math.sqrt((float(np.var(up, ddof=1)) + float(np.var(ub, ddof=1))) / n) \
        if n > 1 else math.nan
    return {"diff": diff,
            "lo": diff - m.scale * z * se_paired, "hi": diff + m.scale * z * se_paired,
            "unpaired_lo": diff - m.scale * z * se_unpaired,
            "unpaired_hi": diff + m.scale * z * se_unpaired,
            "identical_games": float(np.mean((xp == xb) & (yp == yb))), "n": n}


# ----------------------------------------------------------------------------- streamed
# The same estimates from sums gathered block by block (RunGames): a first pass sums x and
# y (the ratio R), a second the influence terms u = (x - R y) / mean(y) and, for paired
# differences, u_point - u_base on the same games. The sample variance is
# (sum u^2 - (sum u)^2 / n) / (n - 1), which is np.var(u, ddof=1) up to rounding.
def _ratio_sums(metrics, source) -> dict[str, tuple[float, float]]:
    sums = {m.name: [0.0, 0.0] for m in metrics}
    for start, stop in source.ranges():
        g = source.block_of(start, stop)
        for m in metrics:
            x, y = m.xy(g)
            sums[m.name][0] += float(np.sum(x))
            sums[m.name][1] += float(np.sum(y))
    return {k: (sx, sy) for k, (sx, sy) in sums.items()}


def _u(m, g, ratio, mean_y) -> np.ndarray:
    x, y = m.xy(g)
    return (x - ratio * y) / mean_y


def _ratio(sx, sy, n):
    return (sx / sy, sy / n) if sy > 0 else (math.nan, math.nan)


def _var(s, ss, n) -> float:
    return (ss - s * s / n) / (n - 1) if n > 1 else math.nan


def streamed_estimates(metrics, games: RunGames, z: float = 1.959964) -> dict[str, dict]:
    """:func:`estimate` of every metric, reading the run block by block (two passes)."""
    from sim.core.stats import wilson

    sums = _ratio_sums(metrics, games)
    n = games.games
    spread = {m.name: [0.0, 0.0] for m in metrics if m.kind != "rate"}
    if spread:
        for start, stop in games.ranges():
            g = games.block_of(start, stop)
            for m in metrics:
                if m.kind != "rate":
                    u = _u(m, g, *_ratio(*sums[m.name], n))
                    spread[m.name][0] += float(np.sum(u))
                    spread[m.name][1] += float(np.sum(u * u))
    out = {}
    for m in metrics:
        sx, sy = sums[m.name]
        if m.kind == "rate":
            p, lo, hi = wilson(int(sx), int(sy), z) if int(sy) else (math.nan,) * 3
        else:
            p = _ratio(sx, sy, n)[0]
            half = z * math.sqrt(_var(*spread[m.name], n)) / math.sqrt(n) if n > 1 else math.nan
            lo, hi = p - half, p + half
        f = lambda v: m.scale * (v + m.offset)  # noqa: E731,B023
        out[m.name] = {"est": f(p), "lo": f(lo), "hi": f(hi), "n": int(sy)}
    return out


def streamed_paired(metrics, games, base, z: float = 1.959964) -> dict[str, dict]:
    """:func:`paired` of every metric, reading both runs block by block."""
    point, baseline = _source(games), _source(base)
    n = point.games
    if n != baseline.games or (point.first, point.last) != (baseline.first, baseline.last):
        raise ValueError("paired differences need the same game indices in both points")
    sp, sb = _ratio_sums(metrics, point), _ratio_sums(metrics, baseline)
    acc = {m.name: np.zeros(7) for m in metrics}   # u_p, u_p^2, u_b, u_b^2, d, d^2, same
    for start, stop in point.ranges():
        g, h = point.block_of(start, stop), baseline.block_of(start, stop)
        if not np.array_equal(g["game_index"], h["game_index"]):
            raise ValueError("paired differences need the same game indices in both points")
        for m in metrics:
            up = _u(m, g, *_ratio(*sp[m.name], n))
            ub = _u(m, h, *_ratio(*sb[m.name], n))
            (xp, yp), (xb, yb) = m.xy(g), m.xy(h)
            d = up - ub
            acc[m.name] += [np.sum(up), np.sum(up * up), np.sum(ub), np.sum(ub * ub),
                            np.sum(d), np.sum(d * d), np.sum((xp == xb) & (yp == yb))]
    out = {}
    for m in metrics:
        a = acc[m.name]
        rp, rb = _ratio(*sp[m.name], n)[0], _ratio(*sb[m.name], n)[0]
        diff = m.scale * (rp - rb)
        se_paired = math.sqrt(_var(a[4], a[5], n)) / math.sqrt(n) if n > 1 else math.nan
        se_unpaired = math.sqrt((_var(a[0], a[1], n) + _var(a[2], a[3], n)) / n) \
            if n > 1 else math.nan
        out[m.name] = {"diff": diff,
                       "lo": diff - m.scale * z * se_paired, "hi": diff + m.scale * z * se_paired,
                       "unpaired_lo": diff - m.scale * z * se_unpaired,
                       "unpaired_hi": diff + m.scale * z * se_unpaired,
                       "identical_games": float(a[6] / n) if n else math.nan, "n": n}
    return out


# ----------------------------------------------------------------------------- tables
def sweep_tables(points: list[dict], metrics: tuple[str, ...],
                 z: float = 1.959964):
    """``points``: dicts with name, players, values (axis -> value), games (the arrays of
    :func:`load_games`, or a :class:`RunGames`, read block by block) and baseline (name of
    the baseline point of the same player count). Returns the point table and the
    paired-difference table (polars)."""
    import polars as pl

    by_name = {p["name"]: p for p in points}
    ms = [METRICS[name] for name in metrics]
    rows, diffs = [], []
    for p in points:
        row = {"point": p["name"], "players": p["players"],
               **{k: _cell(v) for k, v in p["values"].items()}, "games": game_count(p["games"])}
        own = (streamed_estimates(ms, p["games"], z) if isinstance(p["games"], RunGames)
               else {name: estimate(name, p["games"], z) for name in metrics})
        for name in metrics:
            e = own[name]
            row.update({f"{name}": e["est"], f"{name}_lo": e["lo"], f"{name}_hi": e["hi"]})
        rows.append(row)
        base = by_name.get(p.get("baseline"))
        if base is None or base is p:
            continue
        streamed = isinstance(p["games"], RunGames) or isinstance(base["games"], RunGames)
        pair = (streamed_paired(ms, p["games"], base["games"], z) if streamed
                else {name: paired(name, p["games"], base["games"], z) for name in metrics})
        for name in metrics:
            d = pair[name]
            diffs.append({"point": p["name"], "baseline": base["name"], "metric": name,
                          "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                          "unpaired_lo": d["unpaired_lo"], "unpaired_hi": d["unpaired_hi"],
                          "identical_games": d["identical_games"], "games": d["n"]})
    return pl.DataFrame(rows), pl.DataFrame(diffs)


def _cell(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ----------------------------------------------------------------------------- plots
def _numeric(values) -> bool:
    try:
        [float(v) for v in values]
        return True
    except (TypeError, ValueError):
        return False


def plot_metric(table, metric: str, axes_keys: list[str]):
    """The metric against the first swept axis (or the player count), one line per
    combination of the other axes and player count, with the interval as a band."""
    from reports.plots import COLORS, new_figure

    m = METRICS[metric]
    x_key = axes_keys[0] if axes_keys else "players"
    others = [k for k in ["players", *axes_keys] if k != x_key]
    fig, (ax,) = new_figure(1, width=8.0, panel_height=4.0)
    x_values = list(dict.fromkeys(str(v) for v in table[x_key].to_list()))
    numeric = _numeric(x_values)
    position = {v: (float(v) if numeric else i) for i, v in enumerate(x_values)}
    groups = table.partition_by(others, maintain_order=True) if others else [table]
    for i, group in enumerate(groups):
        xs = [position[str(v)] for v in group[x_key].to_list()]
        order = np.argsort(xs)
        xs = np.asarray(xs)[order]
        est = group[metric].to_numpy()[order]
        lo, hi = group[f"{metric}_lo"].to_numpy()[order], group[f"{metric}_hi"].to_numpy()[order]
        label = ", ".join(f"{k}={group[k][0]}" for k in others) or metric
        color = COLORS[i % len(COLORS)]
        if numeric:  # a line with its interval band
            ax.plot(xs, est, marker="o", color=color, label=label)
            ax.fill_between(xs, lo, hi, color=color, alpha=0.2, linewidth=0)
        else:  # categories: no line between them; interval bars, groups side by side
            shift = 0.08 * (i - (len(groups) - 1) / 2)
            ax.errorbar(xs + shift, est, yerr=[est - lo, hi - est], fmt="o", color=color,
                        capsize=3, label=label)
    if not numeric:
        ax.set_xticks(list(position.values()), x_values)
    if metric in ("a_share",):
        ax.axhline(50, color="black", linewidth=0.8, linestyle=":")
    if metric == "imbalance" or metric.endswith("_advantage"):  # 0 is even
        ax.axhline(0, color="black", linewidth=0.8, linestyle=":")
    ax.set_xlabel(x_key)
    ax.set_ylabel(f"{m.title} ({m.unit})")
    ax.set_title(f"{m.title} against {x_key} ({'bands' if numeric else 'bars'}: 95 % intervals)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


# ----------------------------------------------------------------------------- writing
def _fmt_est(est, lo, hi, digits=2) -> str:
    if any(map(lambda v: v is None or (isinstance(v, float) and math.isnan(v)), (est, lo, hi))):
        return "n/a"
    return f"{est:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def display_tables(table, diffs, metrics, axes_keys):
    """(headers, rows) of the point table and of the paired-difference table, as text."""
    head = ["point", "players", *axes_keys, "games"] + [f"{METRICS[m].title} ({METRICS[m].unit})"
                                                         for m in metrics]
    rows = []
    for r in table.iter_rows(named=True):
        rows.append([r["point"], str(r["players"]), *[str(r[k]) for k in axes_keys], f"{r['games']:,}"]
                    + [_fmt_est(r[m], r[f"{m}_lo"], r[f"{m}_hi"]) for m in metrics])
    dhead = ["point", "baseline", "metric", "paired difference [95 %]", "unpaired [95 %]",
             "identical games"]
    drows = []
    for r in (diffs.iter_rows(named=True) if diffs.height else []):
        unit = "pp" if METRICS[r["metric"]].unit in ("%", "pp") else METRICS[r["metric"]].unit
        drows.append([r["point"], r["baseline"], r["metric"],
                      f"{_fmt_est(r['diff'], r['lo'], r['hi'])} {unit}",
                      _fmt_est(r["diff"], r["unpaired_lo"], r["unpaired_hi"]).split(" ", 1)[-1],
                      f"{100 * r['identical_games']:.1f} %"])
    return (head, rows), (dhead, drows)


def write_sweep_report(out_dir: str | Path, title: str, points: list[dict],
                       axes_keys: list[str], metrics: tuple[str, ...],
                       notes: list[str] = ()) -> dict[str, Any]:
    """sweep.csv, paired.csv, one PNG per metric, sweep.md and a self-contained sweep.html."""
    from reports.plots import to_png

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table, diffs = sweep_tables(points, metrics)
    table.write_csv(out / "sweep.csv")
    if diffs.height:
        diffs.write_csv(out / "paired.csv")
    images = {}
    for metric in metrics:
        png = to_png(plot_metric(table, metric, axes_keys))
        (out / f"sweep-{metric}.png").write_bytes(png)
        images[metric] = png
    (head, rows), (dhead, drows) = display_tables(table, diffs, metrics, axes_keys)
    md = [f"# {title}", "", *notes, "",
          "Point estimates with 95 % intervals (Wilson for rates, normal for means).", "",
          markdown_table(head, rows), ""]
    if drows:
        md += ["## Paired differences against the baseline point", "",
               "Every point plays the same (seed, game index) games, so differences are paired "
               "(common random numbers); the unpaired interval is shown for comparison.", "",
               markdown_table(dhead, drows), ""]
    md += [f"![{m}](sweep-{m}.png)" for m in metrics]
    (out / "sweep.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    figs = "".join(f"<h3>{html.escape(METRICS[m].title)}</h3><img alt='{m}' "
                   f"src='data:image/png;base64,{base64.b64encode(images[m]).decode()}'>"
                   for m in metrics)
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;"
            "font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}"
            "img{max-width:100%}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>" + "".join(f"<p>{html.escape(n)}</p>" for n in notes)
            + html_table(head, rows)
            + ("<h2>Paired differences against the baseline point</h2>" + html_table(dhead, drows)
               if drows else "")
            + figs + "</body></html>")
    (out / "sweep.html").write_text(page, encoding="utf-8")
    return {"table": table, "diffs": diffs, "html": out / "sweep.html", "markdown": out / "sweep.md",
            "csv": out / "sweep.csv"}
