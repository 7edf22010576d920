"""Each answer checked under stronger play: the same seeds and game indices played with the
search player (``search:k=K,n=N,base=<the run's strategy>``) on every side, the report's
metrics recomputed on those games, and every answer shown beside its stronger-play value:
"holds under stronger play" when the difference's interval lies within the report's band
(±threshold_pp points), "changes" when it excludes 0, else "not decided"
(sim.core.wording.under_stronger_play).

Search games cost about a thousand plain ones, so the check runs on a sample: the lowest
game indices of each run, played chunk after chunk until the time budget of its player
count (``seconds``, default 300 per player count, shared by the runs of that count: the
compensation modes at 3 and 5 players) is spent; the first chunk compiles the search
player when its kernels are not cached yet, which the budget does not count. The section
says how many games each run used and how long they took. ``seconds`` 0 turns the check
off (the environment variable CARDSIM_STRONGER_PLAY sets the default: the test suite's
conftest sets 0); ``games`` fixes the sample instead of the time.

The search games are kept in each run directory (sim.runs.kept_search) with the seconds
they took: a report of the same run, with or without --resume, or a compare of it, reads
them back and counts those seconds against its budget, so with the same budget it reaches
the same games without playing them.

Stopped part-way (Ctrl-C, SIGTERM, a full disk), a report keeps its finished search games
so: they are played in blocks of about BLOCK_SECONDS, and with a journal
(sim.runs.resumable) each block's end and seconds are recorded as it finishes; ``--resume``
reads the blocks' games back, counts their recorded seconds against the budget and plays
on from where it stopped (with a number of games instead of a time, the same games as an
uninterrupted report).

The difference of an answer and its stronger-play value treats the two samples as
independent (the search games are few and play differently from the same deal): its
interval combines the two intervals' half-widths (as Newcombe's does for two rates).
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
from typing import Any

import polars as pl

from reports.sections import ExtraSection
from sim.core.wording import (CHANGES, HOLDS, NOT_DECIDED, interval_text,
                              under_stronger_play, verdicts_counted)
from sim.core.errors import UserError
from sim.runs.kept_search import SECONDS_COLUMN

ENV = "CARDSIM_STRONGER_PLAY"
DEFAULT_SECONDS = 300.0
# The search budget of the check: the search player's default (Peer-to-Peer k=8, n=8; PLAI
# k=8, n=32), what "search" means in every other command (docs/answers.md has its cost)
SEARCH = "search"
NOT_CHECKED = "not checked under stronger play"
BLOCK_SECONDS = 10.0      # search games recorded together (a journal step)
BAR_LABEL = "search games for the stronger-play check"   # the bar while they play


def default_seconds() -> float:
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT_SECONDS
    try:
        return max(0.0, float(raw))
    except ValueError:
        raise UserError(f"must be a number of seconds, got '{raw}'", field=ENV) from None


def seconds_text(seconds: float) -> str:
    """Seconds exactly, as an option value (1234567, 0.5): a continue line must give the
    budget the journal recorded, not a rounded one."""
    value = float(seconds)
    return str(int(value)) if value.is_integer() else repr(value)


def search_request(run) -> dict[str, Any]:
    """The run's request with every strategy slot played by search over its strategy."""
    return searched(run.game, run.players, run.manifest)


def searched(game, players: int, manifest: dict[str, Any]) -> dict[str, Any]:
    """The request of a run's ``manifest`` (a ``game`` at ``players``) with every strategy
    slot played by search over the slot's strategy, its parameters included
    (``builder:threshold=6`` -> ``search:base=builder,threshold=6``)."""
    specs = {}
    for slot in game.strategy_slots(players):
        entry = (manifest.get("strategies") or {}).get(slot) or {}
        name = str(entry.get("name") or game.default_strategy)
        given = "".join(f",{key}={float(value)!r}"
                        for key, value in (entry.get("params") or {}).items())
        specs[slot] = name if name == "search" else f"{SEARCH}:base={name}{given}"
    return {**manifest["request"], "strategies": specs}


RUN_COLUMNS = ("run", "pairing", "strategy_a", "strategy_b", "variant", "seats_a", "seats_b")


def _constant_columns(rs, k: int, have: list[str]) -> list[pl.Expr]:
    """The columns reports.load gives every game of run ``k`` (its group keys, its seats),
    so the metrics group the search games as the run's."""
    one = rs.games.filter(pl.col("run") == k).head(1).collect()
    return [pl.lit(one[c][0], dtype=one[c].dtype).alias(c) for c in one.columns
            if c not in have and (c in RUN_COLUMNS or c.startswith("seat_team_"))]


def search_in_blocks(play, key_of, seed: int, limit: int, budget: float | None,
                     threads: int, journal=None,
                     done=None) -> tuple[list[pl.DataFrame], int, float]:
    """Games 1 .. of one run under search (``play(first, count)``: the games with the
    seconds they took, sim.runs.kept_search), chunk after chunk (2 x threads games each),
    until ``limit`` games or, with a ``budget``, that many seconds of play; in blocks of
    about BLOCK_SECONDS, each answered from ``journal`` when recorded there (keyed by
    ``key_of``: the run and its search request; the journal records where the block ends
    and its seconds, its games being kept). ``done(games, seconds)`` hears of each chunk or
    recorded block. Returns (tables, games played including game 0, seconds)."""
    from sim.runs.resumable import step_key

    tables, n, spent = [], 1, 0.0
    chunk = 2 * threads
    while n < limit and (budget is None or spent < budget):
        key = step_key(("stronger_play", key_of, seed, n))
        recorded = journal.get(key) if journal is not None and key in journal else None
        if recorded is not None and recorded["end"] <= limit:
            # the block's games are kept in the run directory; the journal holds its end
            # and seconds (a run directory that could not keep them plays them again)
            journal.replayed += 1
            tables.append(play(n, recorded["end"] - n).drop(SECONDS_COLUMN))
            if done is not None:
                done(recorded["end"] - n, recorded["seconds"])
            n, spent = recorded["end"], spent + recorded["seconds"]
            continue
        start, block, seconds = n, [], 0.0
        while n < limit:
            count = min(chunk, limit - n)
            games = play(n, count)
            took = float(games[SECONDS_COLUMN].sum())
            seconds += took
            if done is not None:
                done(count, took)
            block.append(games.drop(SECONDS_COLUMN))
            n += count
            if seconds >= BLOCK_SECONDS or (budget is not None and spent + seconds >= budget):
                break
        table = pl.concat(block)
        if journal is not None:
            journal.record(key, {"start": start, "end": n, "seconds": seconds})
        tables.append(table)
        spent += seconds
    return tables, n, spent


def play_search(rs, seconds: float | None = None, games: int | None = None,
                threads: int | None = None, journal=None,
                progress: bool = False) -> tuple[pl.DataFrame | None, list[dict]]:
    """The search games of every run (the runs' columns, their group keys kept, so the
    metrics group them as the runs), and per run what was played. ``journal``: a
    sim.runs.resumable.Journal keeping finished blocks of search games; ``progress``: a
    bar on stderr over the budget (seconds, or games with ``games``)."""
    from sim.core.game import configure_request
    from sim.core.inputs import default_threads
    from sim.core.progress import AmountBar
    from sim.runs.kept_search import KeptSearchGames

    threads = threads or default_threads()
    kept = KeptSearchGames()
    per_count: dict[int, int] = {}
    for run in rs.runs:
        per_count[run.players] = per_count.get(run.players, 0) + 1
    # a game budget counts the games after each run's first, a time budget its seconds
    total = (sum(max(0, min(games, run.games_found) - 1) for run in rs.runs)
             if games is not None else (seconds or 0.0) * len(per_count))
    bar = AmountBar(progress, total, BAR_LABEL)

    def done(count: int, took: float) -> None:
        bar.add(count if games is not None else took)
    parts, played = [], []
    for k, run in enumerate(rs.runs):
        request = search_request(run)
        try:
            config = configure_request(run.game, run.players, request)
        except (UserError, KeyError) as exc:
            played.append({"run": run.path, "players": run.players, "games": 0,
                           "seconds": 0.0, "note": f"not played: {exc}"})
            continue
        seed = int(run.manifest["seed"])
        folder = kept.folder(run.path, config, seed)

        def play(first, count, config=config, folder=folder, seed=seed):
            return kept.games(config, folder, seed, first, count, threads)[0]
        started = time.perf_counter()
        first = play(0, 1).drop(SECONDS_COLUMN)      # compiles the search player once
        compile_seconds = time.perf_counter() - started
        limit = min(games if games is not None else run.games_found, run.games_found)
        budget = None if games is not None else (seconds or 0.0) / per_count[run.players]
        tables, n, spent = search_in_blocks(play, {**run.identity, "search": request}, seed,
                                            limit, budget, threads, journal, done)
        table = pl.concat([first, *tables])
        table = table.with_columns(_constant_columns(rs, k, table.columns))
        parts.append(table)
        played.append({"run": run.path, "players": run.players, "variant": run.variant,
                       "games": n, "seconds": round(spent, 1),
                       "first_game_seconds": round(compile_seconds, 1),
                       "strategies": ", ".join(f"{s}={v}" for s, v in
                                               request["strategies"].items()),
                       **({} if kept.kept_on_disk(folder) else {
                           "note": "search games not kept: the run directory cannot be "
                                   "written, so a later check plays them again"})})
    bar.finish()
    if not parts:
        return None, played
    return pl.concat(parts, how="diagonal_relaxed"), played


def recomputed(answer, frame: pl.DataFrame):
    """(estimate, lo, hi) of ``answer`` on the search games, for the same subject: its own
    ``recompute`` (a card, a cause), else its measure on its group's games (Wilson), else
    None (an answer of an added section)."""
    from sim.core.report_metric import in_group
    from sim.core.stats import wilson

    if answer.recompute is not None:
        return answer.recompute(frame)
    if answer.measure is None:
        return None
    games = in_group(frame, answer.group).collect()
    num, den = answer.measure.arrays(games)
    if den.sum() <= 0:
        return None
    value, lo, hi = wilson(int(num.sum()), int(den.sum()))
    shift = answer.measure.even if answer.kind == "diff" else 0.0   # an edge, not a share
    return value - shift, lo - shift, hi - shift


def independent_difference(first: tuple[float, float, float],
                           second: tuple[float, float, float]) -> tuple[float, float, float]:
    """second - first, each (estimate, lo, hi), with the two intervals' half-widths on
    each side combined (independent samples, as Newcombe's for two rates)."""
    (a, a_lo, a_hi), (b, b_lo, b_hi) = first, second
    d = b - a
    return d, d - math.hypot(a_hi - a, b - b_lo), d + math.hypot(a - a_lo, b_hi - b)


def _where(answer) -> tuple:
    group = answer.group or {}
    return group.get("players", answer.players), group.get("variant")


def _unit(answer) -> str:
    return " points" if answer.kind == "diff" else " %"


def compare(answers: list, frame: pl.DataFrame | None, seconds: dict[tuple, float],
            threshold_pp: float = 2.0) -> list:
    """``answers`` [(Answer, anchor)] with their ``stronger`` dicts (``seconds``: the time
    the search games of each (players, variant) took)."""
    out = []
    for answer, anchor in answers:
        got = recomputed(answer, frame) if frame is not None else None
        if got is None or not all(x == x for x in (*got, answer.lo, answer.hi)):
            if not (answer.key and (answer.measure or answer.recompute)):
                why = "not an answer of the runs' games (its own section's study)"
            elif got is None or not math.isfinite(got[0]):
                # a value of NaN means no game of its kind either (e.g. a card never opened)
                why = "no search games of it (none of its kind in the sample)"
            elif not all(x == x for x in got):
                # a game or two of its kind give an estimate but no interval to compare
                why = (f"too few search games of its kind to give an interval (estimate "
                       f"{100 * got[0]:.1f}{_unit(answer)} without one)")
            else:
                why = "the runs' own answer has no interval to compare with"
            out.append((dataclasses.replace(answer, stronger={
                "checked": False, "words": f"{NOT_CHECKED}: {why}"}), anchor))
            continue
        est, lo, hi = got
        from sim.core.report_metric import in_group

        games = in_group(frame, answer.group).select(pl.len()).collect().item()
        d, d_lo, d_hi = independent_difference((answer.estimate, answer.lo, answer.hi),
                                                (est, lo, hi))
        status = under_stronger_play(d_lo, d_hi, threshold_pp)
        shown = interval_text(est, lo, hi, 1, 100.0, _unit(answer))
        moved = f"{100 * d:+.1f} points [{100 * d_lo:+.1f}, {100 * d_hi:+.1f}]"
        words = {HOLDS: f"holds under stronger play ({shown})",
                 CHANGES: f"changes: {shown} under stronger play ({moved})",
                 NOT_DECIDED: (f"not decided under stronger play: {shown}, {moved} from the "
                               f"runs' answer, an interval reaching past ±{threshold_pp:g} "
                               "points (more search games would narrow it)")}[status]
        stronger = {"checked": True, "status": status, "holds": status == HOLDS,
                    "value": est, "lo": lo, "hi": hi,
                    "difference": d, "difference_lo": d_lo, "difference_hi": d_hi,
                    "words": words, "games": games,
                    "seconds": round(seconds.get(_where(answer), 0.0), 1)}
        if answer.even is not None and answer.measure is not None:
            from sim.core.wording import edge_answer

            m = answer.measure
            stronger["verdict"], stronger["answer"] = edge_answer(
                est, lo, hi, answer.even, threshold_pp, m.above, m.below)
        out.append((dataclasses.replace(answer, stronger=stronger), anchor))
    return out


def check_answers(answers: list, rs, ctx, seconds: float | None = None,
                  games: int | None = None, threads: int | None = None,
                  journal=None, progress: bool = False,
                  announce=None) -> tuple[list, ExtraSection | None]:
    """``answers`` [(Answer, anchor)] with their stronger-play checks, and the section
    (``journal`` and ``progress``: see ``play_search``; ``announce``: called once before the
    search games, when the check is on, so a command can say what it will play after its
    inputs were read)."""
    seconds = default_seconds() if seconds is None else seconds
    if not seconds and not games:
        return [(dataclasses.replace(a, stronger={
            "checked": False, "words": f"{NOT_CHECKED} (turned off)"}), anchor)
            for a, anchor in answers], None
    if announce is not None:
        announce()
    frame, played = play_search(rs, seconds, games, threads, journal, progress)
    n = sum(p["games"] for p in played)
    spent = sum(p["seconds"] for p in played)
    seconds_of = {(p["players"], p.get("variant")): p["seconds"] for p in played}
    checked = compare(answers, frame, seconds_of, ctx.threshold_pp)
    if frame is None:
        return checked, None
    table = pl.DataFrame([{k: v for k, v in p.items()} for p in played])
    status = [a.stronger["status"] for a, _ in checked
              if a.stronger and a.stronger.get("checked")]
    description = (
        f"Every answer recomputed on {n:,} games played with the search player on every "
        f"side ({spent:.0f} s, not counting the search player's first game, which compiles "
        "it when it is not cached), the runs' lowest game indices: the same deals, played "
        "better. 'holds under stronger play' when the difference from the runs' answer has "
        f"an interval within ±{ctx.threshold_pp:g} points (the two samples treated as "
        "independent), 'changes' when its interval excludes 0, else 'not decided' (too few "
        f"search games to tell). Of {len(status)} answers checked, "
        f"{verdicts_counted(status)}. " + (
            f"Each run played up to {games:,} games under search (simulate report "
            "--stronger-play-games N)." if games is not None else
            f"The budget is about {seconds:g} s per player count (simulate report "
            "--stronger-play SECONDS; 0 turns it off)."))
    return checked, ExtraSection(name="stronger_play", title="Checked under stronger play",
                                 description=description, table=table, order=6)
