"""``--until-ci W``: play chunk after chunk until every headline interval is narrower
than W percentage points, or the planned games (--games, the maximum) are played.

Headline intervals: the rates of the game's ``Game.headline_counts`` (Wilson), e.g. team
A's and team B's win rates and the all-lose rate, or every seat's win rate and the
maintainers' win rate.

Repeated looks: the run looks after every chunk, so it looks up to K times, K = the
number of chunks of the maximum run. Each look's intervals are computed at level
1 - alpha/K (Bonferroni over the planned looks, alpha = 0.05; for a 2-sided interval
z = Phi^-1(1 - alpha / (2K))). By the union bound the probability that an interval
misses its rate at ANY look, and so at the look where the run stops, is at most alpha:
the reported intervals keep 95 % coverage under this data-dependent stopping. The price
is width: with 100 planned looks z = 3.48 instead of 1.96. The stopping width is checked
on these corrected intervals, and they are the ones reported.
"""
from __future__ import annotations

import re
from pathlib import Path
from statistics import NormalDist
from typing import Any, Mapping

from sim.core.errors import UserError
from sim.core.game import resolve_game
from sim.core.inputs import parse_count, parse_threads
from sim.core.progress import progress_bar
from sim.core.request import Execution, GameRequest
from sim.runs.setup import new_run, play, using

ALPHA = 0.05
DEFAULT_MAX_GAMES = 10_000_000
METHOD = ("Bonferroni over the planned looks: each look (one per chunk) uses level "
          "1 - 0.05/K, K = chunks in the maximum run")


def parse_width(value: Any) -> float:
    """W in percentage points: ``1``, ``0.5``, ``1pp`` or ``1%``."""
    text = str(value).strip().lower()
    match = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)\s*(pp|%)?", text)
    if not match or float(match.group(1)) <= 0 or float(match.group(1)) >= 100:
        raise UserError(f"expected an interval width in percentage points above 0 and below "
                        f"100, such as 1, 0.5 or 1pp, got '{value}'", field="--until-ci")
    return float(match.group(1))


def z_for_looks(looks: int, alpha: float = ALPHA) -> float:
    return NormalDist().inv_cdf(1.0 - alpha / (2.0 * max(1, looks)))


def default_chunk(max_games: int) -> int:
    """About 100 looks, each at least 10,000 games (fewer for small maxima)."""
    return max(1, min(max_games, 100_000, max(10_000, -(-max_games // 100))))


class Tally:
    """Headline counts so far (the game's ``Game.headline_counts``) and their corrected
    intervals."""

    def __init__(self, game: Any, players: int, z: float):
        self.count = game.headline_counts
        self.columns = tuple(game.headline_columns)
        self.players, self.z = players, z
        self.n = 0
        self.counts: dict[str, int] = {}

    def add(self, games) -> None:
        """Count one chunk's games (a polars DataFrame with ``columns``)."""
        self.n += games.height
        for name, count in self.count(games, self.players).items():
            self.counts[name] = self.counts.get(name, 0) + int(count)

    def intervals(self) -> dict[str, dict[str, float]]:
        from sim.core.stats import wilson

        out = {}
        for name, count in self.counts.items():
            p, lo, hi = wilson(count, self.n, self.z)
            out[name] = {"rate": p, "lo": lo, "hi": hi, "width_pp": 100 * (hi - lo)}
        return out

    def narrow(self, width_pp: float) -> bool:
        return self.n > 0 and all(v["width_pp"] < width_pp for v in self.intervals().values())


def run_until_ci(request: GameRequest, execution: Execution):
    """The run of ``sim.api.run(..., until_ci=W)``: grows one chunk at a time up to
    ``execution.games`` (the maximum). Every chunk is played on ``execution.backend`` (as
    in ``sim.api.run``: a name, created here and closed at the end, or a Backend object,
    left open)."""
    from sim.runs import backends, rundir

    width_pp = parse_width(execution.until_ci)
    max_games = parse_count(execution.games, field="--games")
    chunk = (default_chunk(max_games) if execution.chunk_size is None
             else min(parse_count(execution.chunk_size, "--chunk-size"), max_games))
    layout = rundir.chunk_layout(max_games, chunk)
    looks = len(layout)
    z = z_for_looks(looks)
    state = {"width_pp": width_pp, "max_games": max_games, "looks_planned": looks,
             "alpha": ALPHA, "z": z, "method": METHOD, "looks": 0, "stopped": None}
    chosen, owned = backends.resolve(execution.backend, execution.backend_options)
    try:
        threads = parse_threads(execution.threads, chosen.default_threads())
        config, run, manifest = new_run(
            request, games=layout[0][1], seed=execution.seed, out=execution.out,
            chunk_size=chunk, command_line=execution.command_line, extra={"until_ci": state})
    except BaseException:
        if owned:
            chosen.close()
        raise
    with run, using(chosen, owned, run):
        return _grow(config, run, manifest, state, layout, chosen, threads, execution.progress,
                     manifest["command_line"])


def resume_until_ci(run_dir: Any, execution: Execution):
    """Continue a stopped ``--until-ci`` run as it would have gone on: finish the look it
    was playing, then look after every chunk as before (the earlier looks did not stop
    it, or it would not be unfinished). None when ``run_dir`` is no unfinished
    ``--until-ci`` run (``sim.runs.setup.resume`` continues it then)."""
    from sim.runs import backends, rundir
    from sim.runs.setup import own_command_line, reopened

    try:
        manifest = rundir.RunDir(Path(run_dir)).read_manifest()
    except (OSError, UserError, ValueError):
        return None   # setup.resume says what is wrong with it
    state = manifest.get("until_ci")
    if not isinstance(state, dict) or state.get("stopped") is not None:
        return None
    chosen, owned = backends.resolve(execution.backend, execution.backend_options)
    threads = parse_threads(execution.threads, chosen.default_threads())
    command_line = execution.command_line or own_command_line()
    with rundir.RunDir.open(run_dir) as run, using(chosen, owned, run):
        config, manifest = reopened(run)
        layout = rundir.chunk_layout(state["max_games"], manifest["chunk_size"])
        return _grow(config, run, manifest, state, layout, chosen, threads, execution.progress,
                     command_line, first_look=int(manifest["chunks"]["count"]))


def _grow(config: Any, run: Any, manifest: dict, state: dict, layout: list[tuple[int, int]],
          backend: Any, threads: int, progress: bool, command_line: str, first_look: int = 1):
    """Play one chunk per look until the intervals are narrow enough (see the module),
    from look ``first_look`` (a resumed run: the chunks before it are counted first)."""
    import polars as pl

    width_pp, max_games, z = state["width_pp"], state["max_games"], state["z"]
    tally = Tally(resolve_game(manifest["game"]), manifest["players"], z)
    for start, _ in layout[:first_look - 1]:
        tally.add(pl.read_parquet(run.part_path(manifest["seed"], start),
                                  columns=list(tally.columns)))
    bar = progress_bar(progress, max_games,
                       f"{manifest['game']} {manifest['players']}p until CI < {width_pp:g} pp")
    if bar is not None and tally.n:
        bar.update(tally.n)
    try:
        for look, (start, count) in enumerate(layout, 1):
            if look < first_look:
                continue
            if look > 1:  # grow the run by one chunk; earlier chunks are its prefix
                manifest["games"] = start + count
                manifest["chunks"].update(count=look, last_count=count)
            result = play(config, run, manifest, threads=threads, command_line=command_line,
                          backend=backend)
            manifest = result.manifest
            tally.add(pl.read_parquet(run.part_path(manifest["seed"], start),
                                      columns=list(tally.columns)))
            state["looks"] = look
            state["intervals"] = tally.intervals()
            if bar is not None:
                bar.update(count)
            if tally.narrow(width_pp):
                state["stopped"] = "every headline interval is narrower than the width"
                break
        else:
            state["stopped"] = "reached --games before the intervals were narrow enough"
        manifest["until_ci"] = state
        run.write_manifest(manifest)
    finally:
        if bar is not None:
            bar.render_finish()
    result.manifest = manifest
    result.summary["until_ci"] = state
    return result


def describe(state: Mapping[str, Any]) -> str:
    """The lines the CLI prints after an --until-ci run."""
    lines = [f"until-ci: {state['stopped']} after {state['looks']} of {state['looks_planned']} "
             f"looks; intervals at z = {state['z']:.2f} (Bonferroni over {state['looks_planned']} "
             "looks, 95 % overall, which hold after the stop; the table's intervals above are "
             "for a fixed number of games):"]
    for name, v in state.get("intervals", {}).items():
        lines.append(f"  {name:<18} {100 * v['rate']:6.2f} %  [{100 * v['lo']:.2f} - "
                     f"{100 * v['hi']:.2f}]  width {v['width_pp']:.2f} pp")
    return "\n".join(lines)
