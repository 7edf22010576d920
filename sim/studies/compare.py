"""``simulate compare BASE_RUN EDIT_RUN``: what an edit did to the games, game by game.

Two run directories of the same game, player count and seed hold the same games under
common random numbers: game i of both drew from the same random stream, so a game whose
outcome differs between them was changed by the edit (the cards, rules or strategies that
differ between the manifests, listed first). The comparison gives every headline's paired
difference with its 95 % interval, the same for the game's balance measures (team A's share
of the games won by a team), and the games whose outcome changed, grouped by how they
changed ("team A win -> all-lose"), with their game indices; the tallies are
``sim.core.paired``'s (the headlines' the same as the workbench's live comparison).

Runs that are not paired are refused with one line: different games, player counts or
seeds, or no game index in common. Runs of different sizes (or an unfinished one) are
compared on the game indices both hold, and the output says so.

Memory stays flat in the number of games: both runs are read ``WINDOW`` game indices at a
time (only the parts that hold them, only the outcome columns); what grows is the list of
changed games' indices (8 bytes each).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from sim.core.errors import UserError
from sim.core.game import resolve_game
from sim.core.paired import GameOutcomes, PairedTally, verdict_line
from sim.core.wording import NOT_DECIDED, verdicts_counted
from sim.core.stats import Z95

WINDOW = 100_000        # game indices read at a time from each run
SHOWN = 8               # game indices listed per kind of change in the text
SHOWN_CARD_CHANGES = 12  # card changes listed in the text (all in the JSON)
JSON_FORMAT = 1
CONFIG_KEYS = ("cards", "rules", "strategies")   # the edit a designer makes
WEIGHTS_KEY = "strategy_weights_sha256"   # told apart from the strategies' names below


# ----------------------------------------------------------------------------- the runs
@dataclass
class RunParts:
    """One run directory: its manifest and the game indices each Parquet part holds."""

    path: Path
    manifest: dict[str, Any]
    parts: list[tuple[int, int, int, str]]   # (first index, last index + 1, rows, file)

    @property
    def games(self) -> int:
        return sum(rows for _, _, rows, _ in self.parts)

    @property
    def spans(self) -> list[tuple[int, int]]:
        """The game-index ranges [start, stop) the parts cover, merged."""
        return _merged([(lo, hi) for lo, hi, _, _ in self.parts])

    def describe(self) -> dict[str, Any]:
        m = self.manifest
        return {"run_dir": str(self.path), "games": self.games,
                "complete": bool(m.get("complete", True)), "command_line": m.get("command_line"),
                "source_hash": m.get("source_hash")}


def open_run(path: str | Path, role: str) -> RunParts:
    """A run directory's manifest and parts (no game is read); UserError if it is none."""
    from reports.load import read_manifest
    from sim.runs.rundir import GAMES_DIR, MANIFEST

    path = Path(path)
    if not (path / MANIFEST).is_file():
        raise UserError("is not a run directory (no manifest.json)", file=str(path), field=role)
    manifest = read_manifest(str(path))      # the reports' reading: the same runs pass
    parts = []
    for part in sorted((path / GAMES_DIR).glob("*.parquet")):
        span = _part_span(part)
        if span is not None:
            parts.append(span)
    return RunParts(path, manifest, sorted(parts))


def _part_span(part: Path) -> tuple[int, int, int, str] | None:
    """(first game index, last + 1, rows, file) of one part, from its Parquet footer (the
    game_index column is read only when the footer has no statistics); None when empty."""
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(part)
        meta = handle.metadata
        names = handle.schema_arrow.names
        if "game_index" not in names:
            raise UserError("has no game_index column; is it a part of a run?", file=str(part))
        if meta.num_rows == 0:
            return None
        column = names.index("game_index")
        stats = [meta.row_group(g).column(column).statistics for g in range(meta.num_row_groups)]
        if all(s is not None and s.has_min_max for s in stats):
            lo, hi = min(int(s.min) for s in stats), max(int(s.max) for s in stats)
        else:
            index = handle.read(columns=["game_index"]).column(0).to_numpy()
            lo, hi = int(index.min()), int(index.max())
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - an unreadable part is the user's file
        raise UserError(f"cannot read this part ({type(exc).__name__}: {exc})",
                        file=str(part)) from None
    return lo, hi + 1, int(meta.num_rows), str(part)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def common_spans(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The game-index ranges both lists of merged [start, stop) ranges cover."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def spans_text(spans: list[tuple[int, int]], shown: int = 3) -> str:
    """'0-1,999' or '0-999, 2,000-2,999 and 2 more ranges'; 'none' when empty."""
    if not spans:
        return "none"
    parts = [f"{lo:,}-{hi - 1:,}" if hi - lo > 1 else f"{lo:,}" for lo, hi in spans[:shown]]
    more = len(spans) - shown
    return ", ".join(parts) + (f" and {more} more range{'s' * (more > 1)}" if more > 0 else "")


def pairing_problem(base: RunParts, edit: RunParts) -> str | None:
    """Why the two runs do not hold the same games, in one sentence; None when they do."""
    why = {"game": ("games", "compare two runs of one game"),
           "players": ("player counts", "compare two runs of the same player count"),
           "seed": ("seeds", "their games are the same games only on the same seed")}
    for key, (what, advice) in why.items():
        a, b = base.manifest.get(key), edit.manifest.get(key)
        if a != b:
            return (f"the runs are not paired: different {what} ({a} in {base.path}, {b} in "
                    f"{edit.path}); {advice}")
    if not common_spans(base.spans, edit.spans):
        return (f"the runs are not paired: they hold no game index in common ({base.path}: "
                f"{spans_text(base.spans)}; {edit.path}: {spans_text(edit.spans)})")
    return None


# ----------------------------------------------------------------------------- the edit
def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _spec(value: Any) -> str:
    """A strategy of a manifest as a short text: 'expert' or 'weighted(rate=0.3)'."""
    if isinstance(value, Mapping):
        params = value.get("params") or {}
        inner = ", ".join(f"{k}={_canon(v) if isinstance(v, (list, dict)) else v}"
                          for k, v in sorted(params.items()))
        return f"{value.get('name', '?')}({inner})" if inner else str(value.get("name", "?"))
    return str(value)


def card_changes(base_cards: Mapping[str, Any], edit_cards: Mapping[str, Any]
                 ) -> dict[str, Any]:
    """What differs between two runs' card files (the manifests' ``cards``): by card id
    and field (reports.card_edits.field_changes) when both files are still the ones the
    runs played (their sha256)."""
    from sim.core.csvfile import file_sha256

    a, b = base_cards.get("sha256"), edit_cards.get("sha256")
    out: dict[str, Any] = {"same": a == b, "baseline_sha256": a, "edit_sha256": b,
                           "changes": [], "added": [], "removed": [], "note": None}
    if a == b:
        return out
    paths = []
    for side, cards in (("baseline", base_cards), ("edit", edit_cards)):
        path = cards.get("path")
        try:
            intact = bool(path) and Path(path).is_file() and file_sha256(path) == cards["sha256"]
        except UserError:
            intact = False
        if not intact:
            out["note"] = (f"the {side} run's card file ({path}) is no longer the file it played "
                           f"(missing or changed since), so the cards cannot be compared "
                           f"field by field; the files differ (sha256 {str(a)[:12]}... vs "
                           f"{str(b)[:12]}...)")
            return out
        paths.append(path)
    from reports.card_edits import field_changes

    try:
        out.update(field_changes(paths[0], paths[1]))
    except UserError as exc:
        out["note"] = f"the card files differ but cannot be read as card tables ({exc})"
        return out
    if not (out["changes"] or out["added"] or out["removed"]):
        out["note"] = "the card files differ only outside the cards (comments or layout)"
    return out


def configuration_changes(base: Mapping[str, Any], edit: Mapping[str, Any]
                          ) -> dict[str, Any]:
    """What the edit was: the card fields, rule options, strategies and any other setting
    of the game (its ``game_manifest_keys``) that differ between two manifests, and the
    engine's source when it differs."""
    rules_a, rules_b = base.get("rules") or {}, edit.get("rules") or {}
    rules = [{"option": key, "baseline": rules_a.get(key), "edit": rules_b.get(key)}
             for key in dict.fromkeys([*rules_a, *rules_b])
             if _canon(rules_a.get(key)) != _canon(rules_b.get(key))]
    strat_a, strat_b = base.get("strategies") or {}, edit.get("strategies") or {}
    strategies = [{"slot": slot, "baseline": strat_a.get(slot), "edit": strat_b.get(slot)}
                  for slot in dict.fromkeys([*strat_a, *strat_b])
                  if _canon(strat_a.get(slot)) != _canon(strat_b.get(slot))]
    keys = dict.fromkeys([*base.get("game_manifest_keys", ()), *edit.get("game_manifest_keys", ())])
    other = [{"key": key, "baseline": base.get(key), "edit": edit.get(key)}
             for key in keys if key not in (*CONFIG_KEYS, WEIGHTS_KEY)
             and _canon(base.get(key)) != _canon(edit.get(key))]
    # the same strategy names playing other weights: a strategy file was edited between
    # the runs (a run that predates the key says nothing)
    weights_a, weights_b = base.get(WEIGHTS_KEY), edit.get(WEIGHTS_KEY)
    if not strategies and weights_a and weights_b and weights_a != weights_b:
        other.append({"key": "the strategies' weights (a strategy file was edited between "
                             "the runs)", "baseline": weights_a[:12], "edit": weights_b[:12]})
    cards = card_changes(base.get("cards") or {}, edit.get("cards") or {})
    engine = None
    if base.get("source_hash") != edit.get("source_hash"):
        engine = {"baseline": base.get("source_hash"), "edit": edit.get("source_hash")}
    return {"same": cards["same"] and not (rules or strategies or other),
            "cards": cards, "rules": rules, "strategies": strategies, "other": other,
            "engine": engine}


def _strategy_text(change: Mapping[str, Any]) -> str:
    a, b = change["baseline"], change["edit"]
    if isinstance(a, Mapping) and isinstance(b, Mapping) and a.get("name") == b.get("name"):
        pa, pb = a.get("params") or {}, b.get("params") or {}
        moved = [f"{k} {_short(pa.get(k))} -> {_short(pb.get(k))}"
                 for k in dict.fromkeys([*pa, *pb]) if _canon(pa.get(k)) != _canon(pb.get(k))]
        return f"strategy {change['slot']} ({a.get('name')}): {', '.join(moved)}"
    return f"strategy {change['slot']}: {_short(_spec(a))} -> {_short(_spec(b))}"


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else _canon(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def changes_lines(changes: Mapping[str, Any], shown: int = SHOWN_CARD_CHANGES) -> list[str]:
    """The edit in words, one line each (the first ``shown`` card changes)."""
    cards = changes["cards"]
    lines = [f"card {c['card']} ({c['name']}) {c['field']}: {c['baseline'] or '(empty)'} -> "
             f"{c['edit'] or '(empty)'}" for c in cards["changes"]]
    lines += [f"card {cid} added" for cid in cards["added"]]
    lines += [f"card {cid} removed" for cid in cards["removed"]]
    if len(lines) > shown:
        lines = lines[:shown] + [f"... and {len(lines) - shown} more card changes (--json)"]
    if cards["note"]:
        lines.append(cards["note"])
    lines += [f"rule {r['option']}: {_short(r['baseline'])} -> {_short(r['edit'])}"
              for r in changes["rules"]]
    lines += [_strategy_text(s) for s in changes["strategies"]]
    lines += [f"{o['key']}: {_short(o['baseline'])} -> {_short(o['edit'])}"
              for o in changes["other"]]
    return lines


# ----------------------------------------------------------------------------- comparing
@dataclass
class RunComparison:
    """Two paired runs compared (``compare_runs``): ``to_text()``, ``to_dict()`` (the
    ``--json`` output), ``changed_games()`` for a list of changed games or a viewer."""

    game: str
    players: int
    seed: int
    baseline: RunParts
    edit: RunParts
    paired: list[tuple[int, int]]
    changes: dict[str, Any]
    tally: PairedTally
    z: float = Z95
    notes: list[str] = field(default_factory=list)
    # the changes under stronger play (sim.studies.compare_stronger.check_change)
    stronger: dict[str, Any] | None = None

    @property
    def games(self) -> int:
        """The number of games compared (both runs hold them)."""
        return self.tally.n

    @property
    def loss_causes(self) -> Any:
        """Why the all-lose rate changed (sim.core.loss_causes.PairedLossCauses, tallied
        with the headlines), for a game whose engine records the causes and runs that have
        their columns; else None."""
        return next(iter(self.tally.also), None)

    def rows(self) -> list[dict[str, Any]]:
        """Per headline: both rates, the paired difference (intervals at ``z``), the games
        where the sides differ for it, and a verdict in words."""
        return [{**row, "verdict": verdict_line(row)} for row in self.tally.rows(self.z)]

    def balance_rows(self) -> list[dict[str, Any]]:
        """Per balance measure of the game (team A's share of the games won by a team;
        each seat's share of the games a startup won): both sides' values and the paired
        difference (sim.core.paired.PairedRatio)."""
        return self.tally.balance_rows(self.z)

    def changed_games(self) -> dict[tuple[str, str], np.ndarray]:
        """{(baseline outcome, edit outcome): sorted game indices}, most games first."""
        return self.tally.changed_indices()

    def to_dict(self, shown: int | None = None) -> dict[str, Any]:
        """Everything, JSON-ready (no NaN): every changed game's index unless ``shown``."""
        return _finite({
            "format": JSON_FORMAT, "game": self.game, "players": self.players,
            "seed": self.seed, "baseline": self.baseline.describe(),
            "edit": self.edit.describe(), "games": self.games,
            "paired_ranges": [[lo, hi] for lo, hi in self.paired], "z": self.z,
            "configuration": self.changes, "notes": list(self.notes),
            "headlines": self.rows(), "balance": self.balance_rows(),
            "stronger_play": self.stronger,
            "all_lose_causes": self._loss_cause_dict(),
            "outcomes": self.tally.outcome_counts(),
            "changed_games": self.tally.changed_count(),
            "changed": self.tally.changed(shown=shown)})

    def _loss_cause_dict(self) -> dict[str, Any] | None:
        return None if self.loss_causes is None else self.loss_causes.answer(self.z)

    def _loss_cause_lines(self) -> list[str]:
        """Why the all-lose rate changed: the unhappy customers of all-lose games by cause,
        per 1,000 games on each side, the paired change, and the cause it comes from."""
        causes = self.loss_causes
        if causes is None:
            return []
        rows = causes.rows(self.z)
        if not (rows[-1]["baseline"] or rows[-1]["edit"]):
            return []

        def per1000(x: float) -> str:
            return f"{1000 * x:.1f}"

        width = max(len("all causes"), *(len(r["cause"]) for r in rows))
        out = ["", "why the all-lose rate changed: unhappy customers of all-lose games per "
                   "1,000 games, by cause",
               f"  {'cause':<{width}}  {'baseline':>9}  {'edit':>9}  edit - baseline (paired)"]
        for r in rows:
            d = r["difference"]
            name = "all causes" if r["cause"] == "all" else r["cause"]
            out.append(f"  {name:<{width}}  {per1000(r['baseline']):>9}  "
                       f"{per1000(r['edit']):>9}  {1000 * d['mean']:+.1f} "
                       f"[{1000 * d['lo']:+.1f}, {1000 * d['hi']:+.1f}]")
        lead = causes.lead(self.z)
        out.append(f"- {lead}" if lead else "- no clear change in the unhappy customers of "
                                            "all-lose games")
        return out

    def _pairing(self, run: RunParts) -> str:
        """The strategies a run played, as its game names them ("expert vs expert")."""
        try:
            return resolve_game(self.game).pairing(run.manifest)
        except (KeyError, TypeError, ValueError, UserError):
            return "strategies not recorded"

    def _stronger_lines(self) -> list[str]:
        """The changes under stronger play, when they were checked (or why not)."""
        found = self.stronger
        if found is None:
            return []
        if not found["checked"]:
            return ["", f"- {found['words']}"]
        rows = [(r["headline"], r) for r in found["headlines"]] + [
            (r["label"], r) for r in found["balance"]]
        kept = ([f"({found['read_back']:,} of the {2 * found['games']:,} search games "
                 "read back from the run directories, where earlier checks kept them)"]
                if found.get("read_back") else [])
        kept += [f"(the search games of {run} could not be kept there: it cannot be "
                 "written, and a later check plays them again)"
                 for run in found.get("not_kept", [])]
        return [*_side_table(f"under stronger play ({found['games']:,} games, "
                             f"{found['seconds']:g} s, search on every side)", rows,
                             "edit - baseline (paired)"),
                *kept, "", verdicts_line([r["status"] for _, r in rows]),
                *(f"- {name}: {r['words']}" for name, r in rows)]

    def to_text(self, shown: int = SHOWN) -> str:
        n = self.games
        lines = [f"{self.game}, {self.players} players, seed {self.seed}: {n:,} games "
                 f"compared (game indices {spans_text(self.paired)})",
                 f"  baseline: {self.baseline.path} ({self.baseline.games:,} games; "
                 f"{self._pairing(self.baseline)})",
                 f"  edit:     {self.edit.path} ({self.edit.games:,} games; "
                 f"{self._pairing(self.edit)})"]
        edit_lines = changes_lines(self.changes)
        if self.changes["same"]:
            lines.append("the edit: none, the two runs have the same configuration (cards, "
                         "rules, strategies)")
        else:
            lines.append("the edit:")
            lines += [f"  {line}" for line in edit_lines]
        lines += [f"note: {note}" for note in self.notes]
        rows = self.rows()
        if rows:
            lines += _side_table("headline", [(r["headline"], r) for r in rows],
                                 "edit - baseline", "games that differ",
                                 lambda r: f"{r['discordant']:,}")
            lines += ["", *(f"- {r['verdict']}" for r in rows)]
        lines += self._loss_cause_lines()
        balance = self.balance_rows()
        if balance:
            lines += _side_table("balance", [(r["label"], r) for r in balance],
                                 "edit - baseline (paired)")
        lines += self._stronger_lines()
        changed = self.tally.changed(shown=shown)
        total = self.tally.changed_count()
        lines.append("")
        if not changed:
            lines.append(f"no game's outcome changed (0 of {n:,} games)")
            return "\n".join(lines)
        share = 100 * total / n if n else math.nan
        lines.append(f"games whose outcome changed: {total:,} of {n:,} ({share:.2f} %), "
                     f"by how they changed:")
        width = max(len(f"{c['from']} -> {c['to']}") for c in changed)
        for c in changed:
            more = ", ..." if c["count"] > len(c["games"]) else ""
            lines.append(f"  {c['from'] + ' -> ' + c['to']:<{width}}  {c['count']:>9,}  games "
                         + ", ".join(f"{i}" for i in c["games"]) + more)
        first = changed[0]["games"][0]
        lines.append(f"every index: add --json; replay one: simulate trace --seed {self.seed} "
                     f"--game-index {first} with each run's options")
        return "\n".join(lines)


def verdicts_line(statuses: list[str | None]) -> str:
    """How many of the changes hold, differ or are not decided under stronger play (the
    statuses of sim.studies.compare_stronger), so that an undecided one is not read past."""
    n = len(statuses)
    more = (" (more search games would decide "
            + ("it)" if statuses.count(NOT_DECIDED) == 1 else "them)")
            if NOT_DECIDED in statuses else "")
    return (f"under stronger play, of the {n} change{'' if n == 1 else 's'} "
            f"{verdicts_counted(statuses, ('differs', 'differ'))}{more}:")


def _side_table(first: str, named: list[tuple[str, Mapping[str, Any]]], difference: str,
                last: str = "", last_of: Any = None) -> list[str]:
    """A blank line, then a table of rows (name, row): both sides' rates, the paired
    difference and, with ``last_of``, one more column."""
    width = max(len(first), *(len(name) for name, _ in named))
    out = ["", f"{first:<{width}}  {'baseline':<24}  {'edit':<24}  "
               + (f"{difference:<26}  {last}" if last_of else difference)]
    for name, r in named:
        diff = difference_text(r["difference"])
        text = f"{name:<{width}}  {_rate_text(r['baseline']):<24}  {_rate_text(r['edit']):<24}  "
        out.append(text + (f"{diff:<26}  {last_of(r)}" if last_of else diff))
    return out


def _rate_text(rate: Mapping[str, float]) -> str:
    if rate["rate"] is None or math.isnan(rate["rate"]):
        return "n/a"
    return f"{100 * rate['rate']:.2f} % [{100 * rate['lo']:.2f}, {100 * rate['hi']:.2f}]"


def difference_text(d: Mapping[str, Any]) -> str:
    """A paired difference in points with its interval ("+1.20 pp [+0.04, +2.36]"), or
    "n/a" without one."""
    if d["mean"] is None or math.isnan(d["mean"]):
        return "n/a"
    return f"{_pp_text(d['mean'])} pp [{_pp_text(d['lo'])}, {_pp_text(d['hi'])}]"


def _pp_text(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{100 * value:+.2f}"


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: None instead."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _read(run: RunParts, start: int, stop: int, columns: list[str]):
    """The games start .. stop-1 the run holds: only the parts that hold them, only
    ``columns``."""
    import polars as pl

    files = [file for lo, hi, _, file in run.parts if lo < stop and hi > start]
    if not files:
        return None
    try:
        frame = (pl.scan_parquet(files).select(columns)
                 .filter(pl.col("game_index").is_between(start, stop - 1)).collect())
    except pl.exceptions.ColumnNotFoundError as exc:
        raise UserError(f"its games have no column {str(exc).splitlines()[0]}; is it a run "
                        f"of {run.manifest.get('game')}?", file=str(run.path)) from None
    if frame["game_index"].is_duplicated().any():
        twice = int(frame.filter(pl.col("game_index").is_duplicated())["game_index"][0])
        raise UserError(f"holds game {twice} twice (two parts overlap)", file=str(run.path))
    return frame


def compare_runs(base_dir: str | Path, edit_dir: str | Path, *,
                 window: int = WINDOW) -> RunComparison:
    """Compare two run directories of the same game, player count and seed on the game
    indices both hold (see the module docstring); UserError when they are not paired."""
    base, edit = open_run(base_dir, "BASE_RUN"), open_run(edit_dir, "EDIT_RUN")
    problem = pairing_problem(base, edit)
    if problem:
        raise UserError(problem)
    name, players = str(base.manifest["game"]), int(base.manifest["players"])
    game = resolve_game(name)
    loss_causes = _loss_causes(game, base, edit)
    tally = PairedTally(GameOutcomes(game, players), game.balance_measures(players),
                        also=(loss_causes,) if loss_causes else ())
    paired = common_spans(base.spans, edit.spans)
    columns = ["game_index", *tally.columns]
    for lo, hi in paired:
        for start in range(lo, hi, window):
            stop = min(hi, start + window)
            b, e = _read(base, start, stop, columns), _read(edit, start, stop, columns)
            if b is not None and e is not None:
                tally.add(b, e)
    notes = []
    if base.games != tally.n or edit.games != tally.n:
        notes.append(f"the runs hold {base.games:,} and {edit.games:,} games; compared on the "
                     f"{tally.n:,} games both hold")
    for role, run in (("baseline", base), ("edit", edit)):
        if not run.manifest.get("complete", True):
            notes.append(f"the {role} run is unfinished ({run.games:,} of "
                         f"{int(run.manifest.get('games', run.games)):,} games)")
    changes = configuration_changes(base.manifest, edit.manifest)
    if changes["engine"]:
        notes.append(f"the runs were played by different engine sources (source_hash "
                     f"{changes['engine']['baseline']} vs {changes['engine']['edit']}): a "
                     f"changed game may come from the code as well as from the edit")
    return RunComparison(name, players, int(base.manifest["seed"]), base, edit, paired,
                         changes, tally, notes=notes)


def _loss_causes(game: Any, base: RunParts, edit: RunParts) -> Any:
    """The all-lose causes' paired tally, when the game records them and both runs' games
    have their columns (older runs may not)."""
    import polars as pl

    from sim.core.loss_causes import PairedLossCauses

    causes = PairedLossCauses.of(game)
    if causes is None:
        return None
    for run in (base, edit):
        if not run.parts or not set(causes.columns) <= set(
                pl.read_parquet_schema(run.parts[0][3])):
            return None
    return causes


def changed_games(base_dir: str | Path, edit_dir: str | Path) -> dict[tuple[str, str], np.ndarray]:
    """{(baseline outcome, edit outcome): game indices} of two paired runs: the games an
    edit changed, by how they changed (what a game viewer or the workbench opens)."""
    return compare_runs(base_dir, edit_dir).changed_games()
