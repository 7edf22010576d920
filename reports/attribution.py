"""The report's reasons for its edges: counterfactual replays (sim.core.attribution).

For every answer whose interval excludes its even point (called or not) and whose
question a swap of the game explains (the game's ``Game.swaps``: Peer-to-Peer's team
balance, PLAI's seat balance), the run's lowest game indices are replayed under each
variant of each swap, from the run's manifest, on the same seed and game indices; each
swap's share of the edge comes with its paired delta-method interval. The replays of a
run take about as long as the run itself did (its games over the number of variants,
unless ``replay_games`` fixes the count), and the section says how many games they used
and how long they took. First a few hundred games are replayed as stored: a run the
current simulator no longer plays the same way is left out, and the report says so.

Stopped part-way (Ctrl-C, SIGTERM, a full disk), a report keeps its finished replays: each
variant is replayed in blocks of BLOCK games, and with a journal (sim.runs.resumable) each
block's per-game measure is recorded as it finishes, so ``--resume`` replays only what is
missing and ends with the same numbers.

The answers whose edge is a rule's own effect (the first-marker and first-player
questions: the marker or the first seat is the thing measured) get that cause stated,
without replays.
"""
from __future__ import annotations

import base64
import dataclasses
import time
import zlib
from typing import Any

import numpy as np
import polars as pl

from reports.load import differences
from reports.sections import ExtraSection
from sim.core.errors import UserError

CHECK_GAMES = 300          # games replayed as stored, to check the simulator still plays them
BLOCK = 50_000             # games replayed per block (a journal step; a Ctrl-C waits for one)
# answers whose edge is measured on the swapped thing itself: the cause is that rule
DIRECT = {"first_marker": ("first_marker", "the first team marker itself: it is given at "
                           "random (P2P-S6), so the holder's edge is its effect"),
          "first_player": ("turn_order", "moving first itself: the winner's place in the turn "
                           "order is what is measured")}

REPLAYS_OFF = {"cause": "replays_off", "kind": "off", "share": None, "lo": None, "hi": None,
               "words": "not explained: the counterfactual replays were turned off "
                        "(--replay-games 0)"}


def _edge_excluded(a) -> bool:
    return (a.even is not None and a.lo == a.lo and a.hi == a.hi
            and (a.lo > a.even or a.hi < a.even))


def _runs_of(rs, group: dict[str, Any]) -> list[int]:
    return [k for k, run in enumerate(rs.runs)
            if run.players == group.get("players") and run.pairing == group.get("pairing")
            and run.variant == group.get("variant")]


def _source_words(pooled: list) -> str:
    """Which games the reasons of an answer pooled from several runs (``pooled``, its
    first one replayed) come from ("" for one run): the replays play its first run only,
    and mixed runs play different games."""
    if len(pooled) < 2:
        return ""
    run, others = pooled[0], len(pooled) - 1
    differ = (", which differ in card file or rules (merged with allow_mixed)"
              if differences(pooled) else "")
    return (f" - from the replayed games of {run.path} only, not of the other {others} "
            f"run{'s' if others > 1 else ''} pooled in this answer{differ}")


def _stored(rs, k: int, count: int) -> pl.DataFrame:
    frame = rs.games.filter((pl.col("run") == k) & (pl.col("game_index") < count))
    return frame.sort("game_index").collect(engine="streaming")


def _check(config, seed: int, stored: pl.DataFrame, outcome: str, threads: int) -> bool:
    """Does the current simulator play the run's first games as stored?"""
    from sim.core.attribution import replay

    n = min(CHECK_GAMES, stored.height)
    again = replay(config, seed, n, threads)
    return again[outcome].to_list() == stored[outcome].head(n).to_list()


def _pack(array: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(np.ascontiguousarray(array, "<f8").tobytes())).decode()


def _unpack(text: str) -> np.ndarray:
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), "<f8")


def replays_in_blocks(run, seed: int, measure, threads: int, journal=None):
    """The ``play`` of sim.core.attribution.explain: a variant's games in blocks of BLOCK,
    each block's (num, den, seconds) answered from ``journal`` when a stopped report
    recorded it, else played (and recorded)."""
    def play(swap, label, variant, count):
        nums, dens, seconds = [], [], 0.0
        for start in range(0, count, BLOCK):
            n = min(BLOCK, count - start)

            def block():
                started = time.perf_counter()
                num, den = measure.arrays(variant.run_chunk(seed, start, n, threads))
                return num, den, time.perf_counter() - started

            if journal is None:
                num, den, spent = block()
            else:
                num, den, spent = journal.step(
                    ("attribution", run.identity, seed, measure.key, swap.cause, label,
                     start, n), block,
                    encode=lambda v: {"num": _pack(v[0]), "den": _pack(v[1]), "seconds": v[2]},
                    decode=lambda v: (_unpack(v["num"]), _unpack(v["den"]), v["seconds"]))
            nums.append(num)
            dens.append(den)
            seconds += spent
        return np.concatenate(nums), np.concatenate(dens), seconds

    return play


def explain_answers(answers: list, rs, replay_games: int | None = None,
                    threads: int | None = None,
                    journal=None) -> tuple[list, ExtraSection | None]:
    """``answers`` [(Answer, anchor)] with their causes (Answer.causes) and the section.
    ``journal``: a sim.runs.resumable.Journal keeping finished blocks of replays."""
    from sim.core.attribution import explain, sample_size, variant_count
    from sim.core.inputs import default_threads
    from sim.runs.setup import configure_from_manifest

    game = rs.runs[0].game
    swaps = game.swaps
    outcome = game.outcome_column
    threads = threads or default_threads()
    rows, notes, out = [], [], []
    replayed_games = 0
    seconds = 0.0
    run_seconds = 0.0
    for answer, anchor in answers:
        if answer.key in DIRECT and _edge_excluded(answer):
            cause, words = DIRECT[answer.key]
            edge = answer.estimate - (answer.even if answer.kind != "diff" else 0.0)
            answer = dataclasses.replace(answer, causes=({
                "cause": cause, "share": abs(edge), "lo": None, "hi": None,
                "words": words, "kind": "direct"},))
            out.append((answer, anchor))
            continue
        measure = answer.measure
        if (measure is None or not _edge_excluded(answer)
                or not any(answer.key in s.explains for s in swaps)):
            out.append((answer, anchor))
            continue
        if replay_games == 0:   # an edge replays would explain: its "Why" says they are off
            out.append((dataclasses.replace(answer, causes=(REPLAYS_OFF,)), anchor))
            continue
        runs = _runs_of(rs, answer.group)
        if not runs:
            out.append((answer, anchor))
            continue
        k = runs[0]   # a group of several runs (seeds, card files): its first run is replayed
        run = rs.runs[k]
        source = _source_words([rs.runs[j] for j in runs])
        try:
            config = configure_from_manifest(run.manifest)
        except (UserError, KeyError) as exc:
            notes.append(f"{run.path}: not replayed (cannot rebuild its configuration: {exc})")
            out.append((answer, anchor))
            continue
        variants = variant_count(swaps, measure.key, config)
        count = replay_games if replay_games is not None else sample_size(
            run.games_found, variants)
        count = min(count, run.games_found)
        seed = int(run.manifest["seed"])
        stored = _stored(rs, k, count)
        if stored.height != count:
            notes.append(f"{run.path}: not replayed (it lacks games 0 .. {count - 1})")
            out.append((answer, anchor))
            continue
        started = time.perf_counter()
        if not _check(config, seed, stored, outcome, threads):
            notes.append(f"{run.path}: not replayed: the simulator no longer plays its games "
                         "as stored (was it changed since the run?)")
            out.append((answer, anchor))
            continue
        checked = time.perf_counter() - started
        causes = explain(config, seed, stored, measure, swaps, threads,
                         play=replays_in_blocks(run, seed, measure, threads, journal))
        # the replays' own seconds (recorded ones included), and this session's check
        seconds += sum(c.seconds for c in causes) + checked
        run_seconds += float(run.manifest.get("wall_seconds") or 0.0)
        replayed_games += count * variants
        for c in causes:
            rows.append({"question": answer.key, "run": run.path, "runs_pooled": len(runs),
                         "players": run.players,
                         "pairing": run.pairing, "variant": run.variant,
                         "edge_rate": answer.estimate, "cause": c.cause, "kind": c.kind,
                         "under": c.variant, "share_diff": c.share, "share_lo": c.lo,
                         "share_hi": c.hi, "fraction_rate": c.fraction,
                         "fraction_lo": c.fraction_lo, "fraction_hi": c.fraction_hi,
                         "replayed_edge": c.edge, "replayed_edge_lo": c.edge_lo,
                         "replayed_edge_hi": c.edge_hi, "games": c.games,
                         "seconds": round(c.seconds, 2), "words": c.sentence() + source})
        out.append((dataclasses.replace(answer, causes=tuple(
            {**c.as_dict(), "words": c.sentence() + source,
             **({"run": run.path} if source else {})}
            for c in causes)), anchor))
    if not rows and not notes:
        return out, None
    description = (
        "Every answer whose 95 % interval excludes its even point is explained by replays: "
        "the same seed and game indices played again with one thing exchanged between the "
        "sides (the game's swaps: "
        + "; ".join(f"{s.cause}: {s.words}" for s in swaps)
        + "). A swap accounts for the run's value minus its mean over the swap's orbit (for "
        "an exchange of two sides, half the change it makes): all of the edge if exchanging "
        "it turns the edge around, none if the edge stays. Points are counted in the edge's "
        "direction, on the replayed games, with paired delta-method 95 % intervals (the game "
        "as the unit); the share of the edge likewise. 'compare' rows show the answer under "
        f"another rule mode instead. Where an answer pools several runs, the replays are "
        "its first run's games only, and its reasons name that run. "
        f"{replayed_games:,} games replayed in {seconds:.0f} s "
        f"(the runs explained took {run_seconds:.0f} s).")
    if notes:
        description += " " + " ".join(notes)
    table = pl.DataFrame(rows) if rows else None
    return out, ExtraSection(name="attribution", title="Why: counterfactual replays",
                             description=description, table=table, order=5)
