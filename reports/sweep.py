"""The sweep view of an experiment: every metric against the swept parameter, with
interval bands, a table, and paired differences against the baseline point.

The metrics are the game's own (``Game.sweep_metrics``, ``sim.core.sweep_metric``):
per-game averages or ratios of per-game sums (``sum x / sum y`` over games), so one
method gives every interval:

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
import json
import math
import textwrap
from pathlib import Path
from statistics import NormalDist
from typing import Any, Mapping, Sequence

import numpy as np

from reports.tables import html_table, markdown_table
from sim.core.wording import interval_text
from sim.core.sweep_metric import SweepMetric  # noqa: F401 - part of this module's API

# Each game declares its own sweep metrics (Game.sweep_metrics, in its package:
# sim/games/<g>/sweep_metrics.py); a metric is named by a SweepMetric or by its name within
# a game. Without a game, a name is looked up in every registered game, built-in games
# first (tests and quick looks: ``estimate("a_share", games)``).


def game_metrics(game: str) -> dict[str, SweepMetric]:
    """The game's sweep metrics by name, in the game's order."""
    from sim.core.game import resolve_game

    return {m.name: m for m in resolve_game(game).sweep_metrics}


def all_metrics() -> dict[str, SweepMetric]:
    """Every registered game's sweep metrics by name (a name two games declare: the first
    game's, built-in games first)."""
    from sim.core.game import GAME_MODULES, game_modules, resolve_game

    found: dict[str, SweepMetric] = {}
    for name in game_modules():
        try:
            metrics = resolve_game(name).sweep_metrics
        except Exception:  # an extra game whose module is not importable here
            if name in GAME_MODULES:   # a built-in game must import
                raise
            continue
        for m in metrics:
            found.setdefault(m.name, m)
    return found


def metric(which: SweepMetric | str, game: str | None = None) -> SweepMetric:
    """``which`` as a SweepMetric: itself, or the metric of that name of ``game`` (of any
    game when None); KeyError for an unknown name."""
    if isinstance(which, SweepMetric):
        return which
    known = game_metrics(game) if game is not None else all_metrics()
    if which not in known:
        raise KeyError(f"unknown sweep metric '{which}'" + (f" of {game}" if game else "")
                       + f"; metrics: {', '.join(known)}")
    return known[which]


def default_metrics(game: str, players=()) -> tuple[str, ...]:
    """The sweep report's metrics when an experiment names none (the game's
    ``Game.default_sweep_metrics``, e.g. PLAI's every seat of the largest player count)."""
    from sim.core.game import resolve_game

    return tuple(resolve_game(game).default_sweep_metrics(tuple(players or ())))


def metrics_for(game: str) -> list[str]:
    """Names of the metrics that apply to ``game`` (its ``Game.sweep_metrics``), in its
    order."""
    return list(game_metrics(game))


def metric_columns(game: str) -> tuple[str, ...]:
    """The per-game columns the game's sweep metrics read, ``game_index`` first."""
    columns = {"game_index": None}
    for m in game_metrics(game).values():
        columns.update(dict.fromkeys(m.columns))
    return tuple(columns)


def z_for(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


# ----------------------------------------------------------------------------- loading
def run_columns(run_dir: str | Path) -> tuple[str, ...] | None:
    """The columns the sweep metrics of a run's game read (its manifest names the game);
    None (every column) when the run has no readable manifest."""
    try:
        game = json.loads((Path(run_dir) / "manifest.json").read_text(encoding="utf-8"))["game"]
        return metric_columns(str(game))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_games(run_dir: str | Path, columns: Sequence[str] | None = None) -> dict[str, np.ndarray]:
    """The columns the sweep metrics read (``columns``, default: those of the run's game's
    metrics), sorted by game index, in memory (a report reads a run through
    :class:`RunGames` instead, block by block)."""
    import polars as pl

    columns = columns if columns is not None else run_columns(run_dir)
    scan = pl.scan_parquet(str(Path(run_dir) / "games" / "*.parquet"))
    return frame_games(scan.select(_present(columns, scan.collect_schema().names())).collect())


BLOCK = 1 << 20   # games read at a time from a run directory


class RunGames:
    """A run directory's games for the sweep metrics, read part by part: each parquet part
    (the engine writes one per chunk of consecutive game indices), or a slice of at most
    ``block`` game indices of a larger one, at a time. So the sweep report's memory does
    not grow with the run. :func:`estimate` and :func:`paired` accept it where they accept
    the arrays of :func:`load_games`; the numbers are the same (sums in another order:
    standard errors to the last digits)."""

    def __init__(self, run_dir: str | Path, block: int = BLOCK,
                 columns: Sequence[str] | None = None):
        import polars as pl

        self.run_dir = Path(run_dir)
        wanted = columns if columns is not None else run_columns(run_dir)
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
        self.columns = _present(wanted, list(pl.read_parquet_schema(self.parts[0][3]).keys()))
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
    return len(games) if isinstance(games, RunGames) else len(games["game_index"])


def _present(wanted: Sequence[str] | None, names: Sequence[str]) -> list[str]:
    """The wanted columns a table has (every column when ``wanted`` is None)."""
    return list(names) if wanted is None else [c for c in wanted if c in names]


def frame_games(frame, columns: Sequence[str] | None = None) -> dict[str, np.ndarray]:
    """A table's ``columns`` (default: all) as arrays, sorted by game index."""
    frame = frame.select(_present(columns, frame.columns)).sort("game_index")
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


def estimate(which: str | SweepMetric, games: dict, z: float = 1.959964,
             game: str | None = None) -> dict[str, float]:
    """The metric with its interval (display units): {est, lo, hi, n}; n counts the
    games in the denominator (decisive games for a_share)."""
    from sim.core.stats import wilson

    m = metric(which, game)
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


def paired(which: str | SweepMetric, games: dict, base: dict, z: float = 1.959964,
           game: str | None = None) -> dict[str, float]:
    """point - baseline on the same games: the paired (CRN) interval and, for comparison,
    the interval that treats the two samples as independent."""
    m = metric(which, game)
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
def sweep_tables(points: list[dict], metrics: Sequence[str | SweepMetric],
                 z: float = 1.959964, game: str | None = None):
    """``points``: dicts with name, players, values (axis -> value), games (the arrays of
    :func:`load_games`, or a :class:`RunGames`, read block by block) and baseline (name of
    the baseline point of the same player count). Returns the point table and the
    paired-difference table (polars)."""
    import polars as pl

    by_name = {p["name"]: p for p in points}
    ms = [metric(m, game) for m in metrics]
    rows, diffs = [], []
    for p in points:
        row = {"point": p["name"], "players": p["players"],
               **{k: _cell(v) for k, v in p["values"].items()}, "games": game_count(p["games"])}
        own = (streamed_estimates(ms, p["games"], z) if isinstance(p["games"], RunGames)
               else {m.name: estimate(m, p["games"], z) for m in ms})
        for m in ms:
            e = own[m.name] if p["players"] >= m.min_players else _NOT_APPLICABLE
            row.update({f"{m.name}": e["est"], f"{m.name}_lo": e["lo"], f"{m.name}_hi": e["hi"]})
        rows.append(row)
        base = by_name.get(p.get("baseline"))
        if base is None or base is p:
            continue
        streamed = isinstance(p["games"], RunGames) or isinstance(base["games"], RunGames)
        pair = (streamed_paired(ms, p["games"], base["games"], z) if streamed
                else {m.name: paired(m, p["games"], base["games"], z) for m in ms})
        for m in ms:
            name = m.name
            d = pair[name] if p["players"] >= m.min_players else {
                **pair[name], **{k: math.nan for k in ("diff", "lo", "hi", "unpaired_lo",
                                                       "unpaired_hi")}}
            diffs.append({"point": p["name"], "baseline": base["name"], "metric": name,
                          "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                          "unpaired_lo": d["unpaired_lo"], "unpaired_hi": d["unpaired_hi"],
                          "identical_games": d["identical_games"], "games": d["n"]})
    return pl.DataFrame(rows), pl.DataFrame(diffs)


# a metric below its smallest player count (team B's win rate in a solo game): no game
# can count toward it, so it is shown n/a rather than as a certain zero
_NOT_APPLICABLE = {"est": math.nan, "lo": math.nan, "hi": math.nan}


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


def plot_metric(table, which: str | SweepMetric, axes_keys: list[str], game: str | None = None):
    """The metric against the first swept axis (or the player count), one line per
    combination of the other axes and player count, with the interval as a band."""
    from reports.plots import COLORS, new_figure

    m = metric(which, game)
    name = m.name
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
        est = group[name].to_numpy()[order]
        lo, hi = group[f"{name}_lo"].to_numpy()[order], group[f"{name}_hi"].to_numpy()[order]
        label = ", ".join(f"{k}={group[k][0]}" for k in others) or name
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
    if m.reference is not None:   # even, or fair
        ax.axhline(m.reference, color="black", linewidth=0.8, linestyle=":")
    ax.set_xlabel(x_key)
    ax.set_ylabel(f"{m.title} ({m.unit})")
    # wrapped: a long metric title and axis key would run past the figure's edges
    ax.set_title(textwrap.fill(f"{m.title} against {x_key} "
                               f"({'bands' if numeric else 'bars'}: 95 % intervals)", 80))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


# ----------------------------------------------------------------------------- writing
def display_tables(table, diffs, metrics, axes_keys, game: str | None = None):
    """(headers, rows) of the point table and of the paired-difference table, as text."""
    ms = {m.name: m for m in (metric(which, game) for which in metrics)}
    metrics = list(ms)
    head = ["point", "players", *axes_keys, "games"] + [f"{m.title} ({m.unit})"
                                                         for m in ms.values()]
    rows = []
    for r in table.iter_rows(named=True):
        rows.append([r["point"], str(r["players"]), *[str(r[k]) for k in axes_keys], f"{r['games']:,}"]
                    + [interval_text(r[m], r[f"{m}_lo"], r[f"{m}_hi"], 2) for m in metrics])
    dhead = ["point", "baseline", "metric", "paired difference [95 %]", "unpaired [95 %]",
             "games the same for it"]
    drows = []
    for r in (diffs.iter_rows(named=True) if diffs.height else []):
        unit = ms[r["metric"]].unit
        unit = "pp" if unit in ("%", "pp") else unit
        missing = math.isnan(r["diff"])   # a metric no game counts toward at this count
        paired = interval_text(r["diff"], r["lo"], r["hi"], 2)
        unpaired = interval_text(r["diff"], r["unpaired_lo"], r["unpaired_hi"], 2)
        drows.append([r["point"], r["baseline"], r["metric"],
                      "n/a" if missing else f"{paired} {unit}", unpaired.split(" ", 1)[-1],
                      "n/a" if missing else f"{100 * r['identical_games']:.1f} %"])
    return (head, rows), (dhead, drows)


def write_sweep_report(out_dir: str | Path, title: str, points: list[dict],
                       axes_keys: list[str], metrics: Sequence[str | SweepMetric],
                       notes: Sequence[str] = (), game: str | None = None,
                       sections: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """sweep.csv, paired.csv, one PNG per metric, sweep.md and a self-contained sweep.html.
    ``sections``: more tables after the paired differences, each {"title", "description",
    "head", "rows"} (an experiment's stronger-play check)."""
    from reports.plots import to_png

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ms = {m.name: m for m in (metric(which, game) for which in metrics)}
    metrics = list(ms)
    table, diffs = sweep_tables(points, list(ms.values()), game=game)
    table.write_csv(out / "sweep.csv")
    if diffs.height:
        diffs.write_csv(out / "paired.csv")
    images = {}
    for name, m in ms.items():
        png = to_png(plot_metric(table, m, axes_keys))
        (out / f"sweep-{name}.png").write_bytes(png)
        images[name] = png
    (head, rows), (dhead, drows) = display_tables(table, diffs, list(ms.values()), axes_keys)
    md = [f"# {title}", "", *notes, "",
          "Point estimates with 95 % intervals (Wilson for rates, normal for means).", "",
          markdown_table(head, rows), ""]
    if drows:
        md += ["## Paired differences against the baseline point", "",
               "Every point plays the same (seed, game index) games, so differences are paired "
               "(common random numbers); the unpaired interval is shown for comparison.", "",
               markdown_table(dhead, drows), ""]
    for section in sections:
        md += [f"## {section['title']}", "", section["description"], "",
               markdown_table(section["head"], section["rows"]), ""]
    md += [f"![{m}](sweep-{m}.png)" for m in metrics]
    (out / "sweep.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    figs = "".join(f"<h3>{html.escape(ms[m].title)}</h3><img alt='{m}' "
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
            + "".join(f"<h2>{html.escape(section['title'])}</h2>"
                      f"<p>{html.escape(section['description'])}</p>"
                      + html_table(section["head"], section["rows"]) for section in sections)
            + figs + "</body></html>")
    (out / "sweep.html").write_text(page, encoding="utf-8")
    return {"table": table, "diffs": diffs, "html": out / "sweep.html", "markdown": out / "sweep.md",
            "csv": out / "sweep.csv"}
