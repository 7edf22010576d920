"""The report's reasons for its edges: counterfactual replays (sim.core.attribution).

For every answer whose interval excludes its even point (called or not) and whose question
a swap of the game explains (the game's ``Game.swaps``: Peer-to-Peer's team balance,
PLAI's seat balance), the run's lowest game indices are replayed under each variant of
each swap, from the run's manifest, on the same seed and game indices; each swap's share
of the edge comes with its paired delta-method interval. An answer pooled from several
runs (seeds, or card files merged on purpose) replays each of them, its share of the
replays in proportion to its games, and pools the pairs. The replays of a run take about
as long as the run itself did (its games over the number of variants, unless
``replay_games`` fixes the count; of a pooled answer, as one of its runs on average), and
the section says how many games they used and how long they took. First a few hundred
games are replayed as stored: a run the current simulator no longer plays the same way is
left out, and the report says so.

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
from sim.core.wording import claims_edge

CHECK_GAMES = 300          # games replayed as stored, to check the simulator still plays them
BLOCK = 50_000             # games replayed per block (a journal step; a Ctrl-C waits for one)
# answers whose edge is measured on the swapped thing itself: the cause is that rule
DIRECT = {"first_marker": ("first_marker", "the first team marker itself: it is given at "
                           "random (P2P-S6), so the holder's edge is its effect"),
          "first_player": ("turn_order", "moving first itself: the winner's place in the turn "
                           "order is what is measured")}

REPLAYS_LABEL = "replaying games for the reasons"   # the bar while they play
REPLAYS_OFF = {"cause": "replays_off", "kind": "off", "share": None, "lo": None, "hi": None,
               "words": "not explained: the counterfactual replays were turned off "
                        "(--replay-games 0)"}


def _edge_excluded(a) -> bool:
    """Does the answer claim an edge (sim.core.wording.claims_edge)?"""
    return claims_edge(a.verdict, a.lo, a.hi, a.even)


def _runs_of(rs, group: dict[str, Any]) -> list[int]:
    return [k for k, run in enumerate(rs.runs)
            if run.players == group.get("players") and run.pairing == group.get("pairing")
            and run.variant == group.get("variant")]


def _source_words(pooled: list, replayed: list) -> str:
    """Which games the reasons of an answer pooled from several runs (``pooled``; those
    replayed: ``replayed``) come from ("" for one run)."""
    if len(pooled) < 2:
        return ""
    differ = (", which differ in card file or rules (merged with allow_mixed)"
              if differences(pooled) else "")
    if len(replayed) == len(pooled):
        return (f" - from the replayed games of all {len(pooled)} runs pooled in this "
                f"answer{differ}")
    return (f" - from the replayed games of {len(replayed)} of the {len(pooled)} runs pooled "
            f"in this answer ({', '.join(run.path for run in replayed)}; the section says "
            f"why not the others){differ}")


def _split(total: int, runs: list) -> list[int]:
    """``total`` games per variant shared among ``runs`` in proportion to their games
    (each at most its own), largest remainders first: one run takes them all."""
    found = [run.games_found for run in runs]
    whole = sum(found)
    if not whole:
        return [0] * len(runs)
    exact = [total * f / whole for f in found]
    counts = [int(x) for x in exact]
    largest_remainders = sorted(range(len(runs)), key=lambda k: counts[k] - exact[k])
    for k in largest_remainders[:total - sum(counts)]:
        counts[k] += 1
    return [min(c, f) for c, f in zip(counts, found)]


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


def replays_in_blocks(run, seed: int, measure, threads: int, journal=None, bar=None):
    """The ``play`` of sim.core.attribution.explain: a variant's games in blocks of BLOCK,
    each block's (num, den, seconds) answered from ``journal`` when a stopped report
    recorded it, else played (and recorded); ``bar`` (sim.core.progress) counts its games."""
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
            if bar is not None:
                bar.update(n)
        return np.concatenate(nums), np.concatenate(dens), seconds

    return play


@dataclasses.dataclass
class _Planned:
    """An answer whose replays are ready to play: its sources (their ``play`` still unset),
    the runs they come from, and the variants each game is replayed under."""
    at: int                # its place in the answers
    answer: Any
    anchor: str
    runs: list             # the runs pooled in the answer
    replayed: list         # those of them replayed, one per source
    sources: list
    variants: int

    @property
    def games(self) -> int:
        return sum(s.original.height for s in self.sources) * self.variants


def _explain(p: _Planned, rs, swaps, threads: int, journal, bar, rows: list,
             out: list) -> float:
    """Play ``p``'s replays (counted on ``bar``), put its answer with its causes back in
    ``out`` and its rows in ``rows``; the seconds the replays took (recorded ones included)."""
    from sim.core.attribution import explain_pooled

    answer, replayed, measure = p.answer, p.replayed, p.answer.measure
    sources = [dataclasses.replace(s, play=replays_in_blocks(run, s.seed, measure, threads,
                                                             journal, bar))
               for s, run in zip(p.sources, replayed)]
    causes = explain_pooled(sources, measure, swaps, threads)
    source = _source_words([rs.runs[j] for j in p.runs], replayed)
    where = "; ".join(run.path for run in replayed)
    for c in causes:
        rows.append({"question": answer.key, "run": where, "runs_pooled": len(p.runs),
                     "runs_replayed": len(replayed), "players": replayed[0].players,
                     "pairing": replayed[0].pairing, "variant": replayed[0].variant,
                     "edge_rate": answer.estimate, "cause": c.cause, "kind": c.kind,
                     "under": c.variant, "share_diff": c.share, "share_lo": c.lo,
                     "share_hi": c.hi, "fraction_rate": c.fraction,
                     "fraction_lo": c.fraction_lo, "fraction_hi": c.fraction_hi,
                     "replayed_edge": c.edge, "replayed_edge_lo": c.edge_lo,
                     "replayed_edge_hi": c.edge_hi, "games": c.games,
                     "seconds": round(c.seconds, 2), "words": c.sentence() + source})
    out[p.at] = (dataclasses.replace(answer, causes=tuple(
        {**c.as_dict(), "words": c.sentence() + source,
         **({"runs": [run.path for run in replayed]} if source else {})}
        for c in causes)), p.anchor)
    return sum(c.seconds for c in causes)


def explain_answers(answers: list, rs, replay_games: int | None = None,
                    threads: int | None = None, journal=None,
                    progress: bool = False) -> tuple[list, ExtraSection | None]:
    """``answers`` [(Answer, anchor)] with their causes (Answer.causes) and the section.
    ``journal``: a sim.runs.resumable.Journal keeping finished blocks of replays;
    ``progress``: a bar over every replayed game on stderr (only on a terminal), drawn once
    all answers' replays are planned, so its length is known."""
    from sim.core.attribution import Source, sample_size, variant_labels
    from sim.core.inputs import default_threads
    from sim.core.progress import bar_context, progress_bar
    from sim.runs.setup import configure_from_manifest

    game = rs.runs[0].game
    swaps = game.swaps
    outcome = game.outcome_column
    threads = threads or default_threads()
    rows, notes, out, planned = [], [], [], []
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
        configs = {}
        for k in runs:
            try:
                configs[k] = configure_from_manifest(rs.runs[k].manifest)
            except (UserError, KeyError) as exc:
                notes.append(f"{rs.runs[k].path}: not replayed (cannot rebuild its "
                             f"configuration: {exc})")
        if not configs:
            out.append((answer, anchor))
            continue
        labels = {k: variant_labels(swaps, measure.key, config)
                  for k, config in configs.items()}
        first_k = next(iter(configs))
        variants = sum(len(names) for _, names in labels[first_k])
        if not variants:   # no swap applies to these runs (one strategy on every side)
            out.append((answer, anchor))
            continue
        group = [rs.runs[k] for k in runs]
        # as many games as one of its runs holds (their mean), so pooling adds no time
        total = replay_games if replay_games is not None else sample_size(
            round(sum(run.games_found for run in group) / len(group)), variants)
        sources, replayed = [], []
        for k, count in zip(runs, _split(total, group)):
            run, config = rs.runs[k], configs.get(k)
            if config is None:
                continue
            if labels[k] != labels[first_k]:
                notes.append(f"{run.path}: not replayed (its swaps differ from those of "
                             f"{rs.runs[first_k].path}, so its replays cannot be pooled "
                             "with them)")
                continue
            if count < 1:
                notes.append(f"{run.path}: not replayed (too few games for a share of the "
                             "replays)")
                continue
            seed = int(run.manifest["seed"])
            stored = _stored(rs, k, count)
            if stored.height != count:
                notes.append(f"{run.path}: not replayed (it lacks games 0 .. {count - 1})")
                continue
            started = time.perf_counter()
            if not _check(config, seed, stored, outcome, threads):
                notes.append(f"{run.path}: not replayed: the simulator no longer plays its "
                             "games as stored (was it changed since the run?)")
                continue
            seconds += time.perf_counter() - started   # this session's check
            sources.append(Source(config, seed, stored))
            replayed.append(run)
        if sources:
            planned.append(_Planned(len(out), answer, anchor, runs, replayed, sources,
                                    variants))
        out.append((answer, anchor))
    bar = progress_bar(progress, sum(p.games for p in planned), REPLAYS_LABEL, show_pos=True)
    with bar_context(bar):
        for p in planned:
            run_seconds += sum(float(run.manifest.get("wall_seconds") or 0.0)
                               for run in p.replayed)
            replayed_games += p.games
            seconds += _explain(p, rs, swaps, threads, journal, bar, rows, out)
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
        f"another rule mode instead. Where an answer pools several runs, each run's games "
        "are replayed under its own variants and the pairs of all of them pooled, its share "
        "of the replays in proportion to its games. "
        f"{replayed_games:,} games replayed in {seconds:.0f} s "
        f"(the runs explained took {run_seconds:.0f} s).")
    if notes:
        description += " " + " ".join(notes)
    table = pl.DataFrame(rows) if rows else None
    return out, ExtraSection(name="attribution", title="Why: counterfactual replays",
                             description=description, table=table, order=5)
