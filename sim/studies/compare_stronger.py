"""Whether an edit's changes (the headlines, the balance answer) hold under stronger play.

``simulate compare`` measures what an edit did on the games both runs played, with the
runs' strategies. This check replays the lowest game indices both runs hold with the
search player on every side of both runs (search over each slot's strategy,
reports.stronger's request: what "stronger play" means in every report), tallies those
games paired as the runs' (sim.core.paired.PairedTally with the game's balance measures)
and sets every headline's and balance measure's paired difference under stronger play
beside the runs'.

A change "holds under stronger play" when the difference between the two paired
differences has an interval within the band (±2 pp, or compare's --threshold), "differs"
when its interval excludes 0, and is "not decided" otherwise
(sim.core.wording.under_stronger_play). The search games are another, far smaller sample
of other play, so the two differences are treated as independent and their half-widths
combined (reports.stronger.independent_difference, as the report's check does).

Budget: ``seconds`` of search play shared by both runs (default 300, $CARDSIM_STRONGER_PLAY;
0 turns it off), or ``games`` game indices. Both runs play the same indices, a chunk of
2 x threads games each in turn; the first game compiles the search player when its
kernels are not cached yet, which the budget does not count.

The search games are kept in the run directories (sim.runs.kept_search), with the seconds
each took, which count against a later check's budget: a stopped or repeated compare,
another edit against the same baseline, an experiment's points against their baseline
point, the workbench's next check and a report of either run play only the games not
played yet, and with the same budget reach the same games.

An experiment's report checks each point against its baseline point the same way, on
request (``points_section``: a section of the sweep report).
"""
from __future__ import annotations

from typing import Any

from sim.core.errors import UserError
from sim.core.game import configure_request, resolve_game
from sim.core.paired import GameOutcomes, PairedTally
from sim.core.wording import (CHANGES, DEFAULT_THRESHOLD_PP, HOLDS, NOT_DECIDED,
                              under_stronger_play)
from sim.runs.kept_search import SECONDS_COLUMN, KeptSearchGames
from sim.studies.compare import difference_text

SIDES = ("baseline", "edit")
SWEEP_WORDS = {HOLDS: "holds", CHANGES: "differs", NOT_DECIDED: "not decided",
               None: "not checked"}   # a status in the sweep report's table


def _chunks(paired: list[tuple[int, int]], limit: int, chunk: int):
    """The lowest ``limit`` game indices of the paired spans as (first, count): the first
    game alone (it compiles the search player), then ``chunk`` games at a time."""
    left, size = limit, 1
    for lo, hi in paired:
        first = lo
        while first < hi and left > 0:
            count = min(size, hi - first, left)
            yield first, count
            first, left, size = first + count, left - count, chunk


def _not_checked(why: str) -> dict[str, Any]:
    from reports.stronger import NOT_CHECKED

    return {"checked": False, "words": f"{NOT_CHECKED} ({why})"}


def check_change(comparison, seconds: float | None = None, games: int | None = None,
                 threads: int | None = None, kept: KeptSearchGames | None = None,
                 progress: bool = False, announce=None,
                 threshold_pp: float = DEFAULT_THRESHOLD_PP) -> dict[str, Any]:
    """The changes of ``comparison`` (a sim.studies.compare.RunComparison) under stronger
    play: {"checked", "games", "seconds", "read_back" (search games read back, of 2 x
    games), "not_kept" (the run directories that could not keep the games played now: a
    later check plays them again), "strategies" per side, "headlines" and
    "balance": the search games' paired rows as ``RunComparison.rows`` and
    ``balance_rows`` give the runs', each with "holds", "change" (the difference of the two
    differences, with its interval) and "words"} or {"checked": False, "words"} (module
    docstring). ``kept``: the search games kept (default: read from and written to the
    run directories). ``progress``: a bar on stderr over the budget (on a terminal);
    ``announce``: called once before the search games, when the check can play them;
    ``threshold_pp``: the band a change must stay within to hold (the reports'
    ``--threshold``), recorded as "threshold_pp"."""
    from reports.stronger import BAR_LABEL, default_seconds, searched
    from sim.core.inputs import default_threads
    from sim.core.progress import AmountBar

    seconds = default_seconds() if seconds is None else float(seconds)
    if not games and not seconds:
        return _not_checked("turned off")
    game = resolve_game(comparison.game)
    players, seed = comparison.players, comparison.seed
    threads = threads or default_threads()
    kept = kept or KeptSearchGames()
    configs, strategies, folders = {}, {}, {}
    for side, run in zip(SIDES, (comparison.baseline, comparison.edit)):
        request = searched(game, players, run.manifest)
        try:
            configs[side] = configure_request(game, players, request)
        except (UserError, KeyError) as exc:
            return _not_checked(f"the {side} run cannot be played by search: {exc}")
        strategies[side] = ", ".join(f"{s}={v}" for s, v in request["strategies"].items())
        folders[side] = kept.folder(run.path, configs[side], seed)
    tally = PairedTally(GameOutcomes(game, players), game.balance_measures(players))
    limit = comparison.games if games is None else min(int(games), comparison.games)
    spent, read_back = 0.0, 0
    if announce is not None:
        announce()
    bar = AmountBar(progress, limit if games is not None else seconds, BAR_LABEL)
    for k, (first, count) in enumerate(_chunks(comparison.paired, limit, 2 * threads)):
        if k and games is None and spent >= seconds:
            break
        drawn, before = {}, spent
        for side in SIDES:
            drawn[side], new = kept.games(configs[side], folders[side], seed, first, count,
                                          threads)
            read_back += count - new
            if k:   # the first game compiles the search player: not counted
                spent += float(drawn[side][SECONDS_COLUMN].sum())
        bar.add(count if games is not None else spent - before)
        tally.add(*(drawn[side].drop(SECONDS_COLUMN) for side in SIDES))
    bar.finish()
    z = comparison.z
    return {"checked": True, "games": tally.n, "seconds": round(spent, 1),
            "read_back": read_back,
            "not_kept": [str(run.path) for side, run in
                         zip(SIDES, (comparison.baseline, comparison.edit))
                         if not kept.kept_on_disk(folders[side])],
            "strategies": strategies,
            "threshold_pp": threshold_pp,
            "headlines": [_held(ours, row, tally.n, threshold_pp) for ours, row in
                          zip(comparison.tally.rows(z), tally.rows(z))],
            "balance": [_held(ours, row, tally.n, threshold_pp) for ours, row in
                        zip(comparison.balance_rows(), tally.balance_rows(z))]}


def _held(ours: dict[str, Any], row: dict[str, Any], games: int,
          threshold_pp: float = DEFAULT_THRESHOLD_PP) -> dict[str, Any]:
    """``row`` (a paired row of the search games) with whether the runs' paired difference
    ``ours`` holds under stronger play: "status" (sim.core.wording.under_stronger_play at
    ±``threshold_pp``; None without an interval), "holds" (the status is HOLDS), "change"
    (the difference of the two differences) and "words"."""
    from reports.stronger import independent_difference

    a, b = ours["difference"], row["difference"]
    change = independent_difference((a["mean"], a["lo"], a["hi"]),
                                    (b["mean"], b["lo"], b["hi"]))
    shown = difference_text(b)
    moved = (f"{100 * change[0]:+.2f} pp [{100 * change[1]:+.2f}, {100 * change[2]:+.2f}] "
             "from the runs' own")
    status = (under_stronger_play(change[1], change[2], threshold_pp)
              if all(x == x for x in change) else None)   # NaN: a side without an interval
    words = {None: (f"not checked under stronger play: too few search games for an "
                    f"interval ({games:,} played)"),
             HOLDS: f"the edit's change holds under stronger play ({shown})",
             CHANGES: f"the edit's change differs under stronger play: {shown}, {moved}",
             NOT_DECIDED: (f"the edit's change is not decided under stronger play: {shown}, "
                           f"{moved}, an interval reaching past ±{threshold_pp:g} pp "
                           "(more search games would narrow it)")}[status]
    return {**row, "status": status, "holds": status == HOLDS,
            "change": dict(zip(("mean", "lo", "hi"), change)), "words": words}


def points_section(points: list[dict[str, Any]], seconds: float | None,
                   games: int | None, threads: int | None,
                   progress: bool = False) -> dict[str, Any]:
    """An experiment's points checked under stronger play, as a sweep-report section
    (reports.sweep.write_sweep_report's ``sections``): every point that is not a baseline
    compared with its baseline's run (``point["baseline_run_dir"]``) as ``simulate
    compare`` compares two runs, ``seconds`` of search games (or ``games`` indices) per
    point; each baseline's search games are played once (module docstring). ``progress``:
    a bar per point while its search games play (on a terminal)."""
    from sim.studies.compare import compare_runs

    rows, searched, spent, kept = [], 0, 0.0, KeptSearchGames()
    for point in points:
        runs = compare_runs(point["baseline_run_dir"], point["run_dir"])
        found = check_change(runs, seconds, games, threads, kept, progress)
        if not found["checked"]:
            rows.append([point["name"], "", "", "", found["words"]])
            continue
        searched += found["games"]
        spent += found["seconds"]
        ours = [(r["headline"], r) for r in runs.rows()] + [
            (r["label"], r) for r in runs.balance_rows()]
        theirs = [(r["headline"], r) for r in found["headlines"]] + [
            (r["label"], r) for r in found["balance"]]
        for (name, a), (_, b) in zip(ours, theirs):
            verdict = SWEEP_WORDS[b["status"]]
            rows.append([point["name"], name, difference_text(a["difference"]),
                         difference_text(b["difference"]),
                         verdict])
    budget = (f"{games:,} game indices per point" if games is not None else
              f"about {seconds:g} s of search games per point")
    return {"title": "Checked under stronger play",
            "description": (
                f"Each point's change against its baseline point (edit - baseline, paired) "
                f"with the experiment's strategies and with the search player on every side "
                f"of both runs, on their lowest game indices ({budget}; {searched:,} in all, "
                f"{spent:.0f} s). 'holds' when the difference between the two has an "
                f"interval within ±{DEFAULT_THRESHOLD_PP:g} pp (the search games treated as "
                "a separate sample), 'differs' when its interval excludes 0, 'not decided' "
                "otherwise (too few search games to tell); the same check as simulate "
                "compare of the two runs."),
            "head": ["point", "change", "with the strategies", "with search", "under stronger play"],
            "rows": rows}
