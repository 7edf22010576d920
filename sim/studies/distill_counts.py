"""``simulate distill --per-count``: one distillation per player count, one strategy file.

What the search exploits differs between a duel and a six-player table (Peer-to-Peer: one
policy distilled at 4 players beat ``expert-v1`` in 56.9 % of the decided 4-player games
but 52.4 % at 2 players), so each count gets its own expert iteration from the same base,
and the file holds the usual count's weights as ``weights`` and, under ``by_players``, each
other count's weights where they differ (sim/core/strategy_file.py plays a count's entries
over ``weights``). A count of the game that no distillation covered plays the base's
weights: nothing measured the learned ones there (Peer-to-Peer's 4-player weights won 44 %
of solo games, ``expert-v1`` 53 %).

Each count's run writes ``FILE.<P>p.yaml`` beside ``FILE.yaml`` (resumable like any
distillation); the per-count files are removed once the combined file is written. With
``--resume`` a count's file already there is kept: one a stopped run of the same command
wrote as it is, one another command made (``simulate tune --against``, say) after the
check a distilled result gets, so the same rule decides whether the count ships it or
the base's weights.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import yaml

from sim.core.strategy import at_counts


def part_path(out: Path, players: int) -> Path:
    return out.with_name(f"{out.stem}.{players}p{out.suffix}")


def combine(parts: Mapping[int, Mapping[str, Any]], main: int, name: str,
            command: str | None = None,
            uncovered: Mapping[int, Mapping[str, float]] | None = None) -> dict[str, Any]:
    """One strategy file from per-count strategy files' documents (count -> document):
    ``weights`` are count ``main``'s, ``by_players`` every other count's weights that
    differ from them, and the base's weights at each count no part covers (``uncovered``:
    count -> weights); ``tuned_on`` describes count ``main`` with each count's own where
    they differ (shared_provenance), and ``score`` keeps each count's."""
    if main not in parts:
        raise ValueError(f"no strategy for the main player count {main}")
    first = parts[main]
    weights = {key: float(value) for key, value in first["weights"].items()}
    by_players: dict[int, dict[str, float]] = {}
    every = {**{p: parts[p]["weights"] for p in parts}, **dict(uncovered or {})}
    for players in sorted(every):
        if players == main:
            continue
        own = {key: float(value) for key, value in every[players].items()
               if float(value) != weights.get(key)}
        if own:
            by_players[int(players)] = own
    counts = sorted(int(p) for p in parts)
    kept = [p for p in counts if (parts[p].get("score") or {}).get("kept_base")]
    # a count's file made by another command beforehand (kept on --resume)
    own_command = [p for p in counts if p not in kept and command and (
        parts[p].get("tuned_on") or {}).get("command") not in (None, command)]
    tuned = shared_provenance({p: parts[p].get("tuned_on") or {} for p in counts}, main)
    if command:
        tuned = {"command": command, **tuned}
    return {
        "cardsim_strategy": 1,
        "game": first["game"],
        "name": name,
        "summary": f"distilled by simulate distill from {first.get('base')} at each of "
                   f"{'/'.join(map(str, counts))} players on its own; the {main}-player "
                   f"weights, each other count's own under by_players" + (
                       f"; {at_counts(kept)} the base's own (the weights made there fell short)"
                       if kept else "") + (
                       f"; {at_counts(sorted(uncovered))} (not distilled) the base's"
                       if uncovered else "") + (
                       f"; {at_counts(own_command)} made by its own command (tuned_on.per_count)"
                       if own_command else ""),
        "players": counts,
        "base": first.get("base"),
        "weights": weights,
        "by_players": by_players,
        "tuned_on": tuned,
        "score": {str(p): dict(parts[p].get("score") or {}) for p in counts},
    }


OWN_KEYS = ("command", "iterations", "seconds")   # every count's own, always under per_count


def shared_provenance(tuned_on: Mapping[int, Mapping[str, Any]], main: int) -> dict[str, Any]:
    """The counts' ``tuned_on`` as one: at the top level count ``main``'s value of every key
    (cards, rules, seed, settings; the file's ``weights`` are that count's, so readers of
    ``hold`` or ``cards`` find them there), and under ``per_count`` each count's OWN_KEYS
    and its own value of every key where the counts differ (a count's file another command
    made has its own seed and settings, whichever count it is)."""
    keys = [key for doc in tuned_on.values() for key in doc if key not in OWN_KEYS]
    keys = list(dict.fromkeys(keys))
    docs = list(tuned_on.values())
    differ = [key for key in keys
              if not all(key in doc and doc[key] == docs[0][key] for doc in docs)]
    tuned = {key: value for key, value in tuned_on[main].items() if key not in OWN_KEYS}
    tuned["per_count"] = {
        str(p): {**{key: doc.get(key) for key in OWN_KEYS},
                 **{key: doc[key] for key in differ if key in doc}}
        for p, doc in tuned_on.items()}
    return tuned


def distill_each_count(counts: Sequence[int], main: int, out: Path, resume: bool,
                       command: str | None, distill_one: Callable[..., Any],
                       finished: Callable[[Path, dict], Any],
                       uncovered: Mapping[int, Sequence[float]] | None = None
                       ) -> tuple[Path, dict, dict, float]:
    """Run ``distill_one(players=P, out=part, resume=...)`` for each count (on ``resume``
    a count's file already there is kept: as ``finished(path, document)`` when this
    command wrote or checked it, else checked first, _check_made_elsewhere), then write
    the combined file, with the base's weight vector at each count of ``uncovered``.
    Returns (its path, its document, the per-count results, their seconds)."""
    from sim.runs.resumable import journal_beside
    from sim.studies.tune import write_strategy_file

    results: dict[int, Any] = {}
    for players in counts:
        part = part_path(out, players)
        if resume and part.exists() and not journal_beside(part).exists():
            document = yaml.safe_load(part.read_text(encoding="utf-8"))
            if _checked_here(document, command):
                results[players] = finished(part, document)
            else:
                results[players] = _check_made_elsewhere(part, document, players, resume,
                                                         command, distill_one)
            continue
        results[players] = distill_one(players=players, out=part,
                                       resume=resume and journal_beside(part).exists())
    names = list(results[main].document["weights"])
    document = combine({p: r.document for p, r in results.items()}, main, out.stem, command,
                       {p: dict(zip(names, map(float, vector)))
                        for p, vector in (uncovered or {}).items()})
    path = write_strategy_file(document, out, by="simulate distill --per-count")
    for players in counts:
        part_path(out, players).unlink(missing_ok=True)
    return path, document, results, sum(r.seconds for r in results.values())


def _checked_here(document: Mapping[str, Any], command: str | None) -> bool:
    """Did this command write the count's file (a stopped run of it), or check it?"""
    made_by = (document.get("tuned_on") or {}).get("command")
    return command is not None and command in (made_by, (document.get("score") or {}).get(
        "checked_by"))


def _check_made_elsewhere(part: Path, document: dict[str, Any], players: int, resume: bool,
                          command: str | None, distill_one: Callable[..., Any]) -> Any:
    """A count's file another command made: its weights get a distilled result's check
    (``distill_one(given=...)``, on the same deals), whose score replaces the file's own
    (kept as ``score.own_command``); where the rule keeps the base, so does the file. The
    file is rewritten checked (``score.checked_by``), so a later --resume keeps it."""
    from dataclasses import replace

    from sim.runs.resumable import journal_beside
    from sim.studies.tune import write_strategy_file

    checking = part.with_name(f"{part.stem}.check{part.suffix}")
    result = distill_one(players=players, out=checking,
                         resume=resume and journal_beside(checking).exists(),
                         given=f"@{part}")
    score = dict(result.document["score"])
    checked = {**document, "score": {**score, "checked_by": command,
                                     "own_command": document.get("score")}}
    if score.get("kept_base"):
        checked["weights"] = result.document["weights"]   # the base's
        checked["summary"] = (f"{document.get('summary')}; short of the check, so it keeps "
                              f"the base's weights")
    write_strategy_file(checked, part, by=str((document.get("tuned_on") or {}).get("command")
                                                or "another command"))
    checking.unlink(missing_ok=True)
    return replace(result, out=part, document=checked)
