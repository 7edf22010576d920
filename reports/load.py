"""Read run directories (manifest.json + games/part-*.parquet) and merge them.

Runs are merged only when they describe the same experiment apart from what a report
compares on purpose: player count, strategy pairing and the rule options of the game's
``Game.compared_rules`` (Peer-to-Peer: ``odd_team_compensation``).
A different card file (sha256) or any other different rule option raises
:class:`sim.core.errors.UserError` unless ``allow_mixed=True``; then the differences are
listed in :attr:`RunSet.mixed` and the report says so.

The merged table gets these columns in addition to the per-game ones:
``run`` (index into :attr:`RunSet.runs`), ``pairing`` ("greedy vs random"),
``strategy_a``, ``strategy_b``, ``variant`` (the game's ``Game.report_group``:
Peer-to-Peer's odd_team_compensation mode for 3 and 5 players, ``"n/a"`` otherwise), and, when the manifest has ``seat_teams``,
``seat_team_0..5`` (0 = A, 1 = B, -1 = no seat), ``seats_a`` and ``seats_b``.
``start_card_*`` and PLAI's per-card fight columns (``card_att_<k>`` and the like) are
re-indexed into one card list shared by all runs (:attr:`RunSet.card_ids`), which only
matters when runs use different card files.

:attr:`RunSet.games` is a polars **LazyFrame** over the runs' parquet parts, never the
merged table in memory: metrics aggregate it (streaming), so a report's peak memory does
not grow with the number of games. ``RunSet.collect()`` gives the table, for small runs
and tests.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from sim.core.csvfile import content_sha256, file_sha256
from sim.core.errors import UserError

COMPARED_ON_PURPOSE = ("players",)   # and the game's Game.compared_rules
MAX_SEATS = 6
REQUIRED_KEYS = ("game", "players", "games", "seed", "cards", "rules", "strategies")


@dataclass
class Run:
    path: str
    manifest: dict[str, Any]
    games_found: int = 0

    @property
    def players(self) -> int:
        return int(self.manifest["players"])

    @property
    def sha256(self) -> str:
        return str(self.manifest["cards"].get("sha256", ""))

    @property
    def rules(self) -> dict[str, Any]:
        return dict(self.manifest.get("rules") or {})

    @property
    def identity(self) -> dict[str, Any]:
        """What makes the run's games (with its seed): the key of the work a report records
        for it (replays, search games), so no other run of the report is answered with it.
        The request alone is not enough: it leaves out the player count."""
        return {"game": self.manifest.get("game"), "players": self.players,
                "request": self.manifest.get("request"), "cards": self.sha256,
                "rules": self.rules}

    @property
    def game(self):
        from sim.core.game import resolve_game

        return resolve_game(str(self.manifest.get("game")))

    @property
    def variant(self) -> str:
        """The third group key of the reports (the game's ``Game.report_group``:
        Peer-to-Peer's odd_team_compensation mode at 3 and 5 players, else "n/a")."""
        return self.game.report_group(self.players, self.rules)

    @property
    def strategy_names(self) -> list[tuple[str, str]]:
        from sim.core.strategy import strategy_labels

        return strategy_labels(self.manifest)

    @property
    def pairing(self) -> str:
        """The game's label of the run's strategies (its ``Game.pairing``)."""
        return self.game.pairing(self.manifest)


@dataclass
class RunSet:
    runs: list[Run]
    games: pl.LazyFrame
    game: str
    card_ids: list[str]
    card_names: list[str]
    mixed: list[str] = field(default_factory=list)     # differences accepted with allow_mixed
    notes: list[str] = field(default_factory=list)     # incomplete runs and the like
    common_rules: dict[str, Any] = field(default_factory=dict)

    @property
    def total_games(self) -> int:
        return sum(r.games_found for r in self.runs)

    @property
    def columns(self) -> list[str]:
        return self.games.collect_schema().names()

    def collect(self) -> pl.DataFrame:
        """The merged per-game table in memory (small runs and tests only)."""
        return self.games.collect()


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def read_manifest(run_dir: str) -> dict[str, Any]:
    path = Path(run_dir) / "manifest.json"
    if not Path(run_dir).is_dir():
        raise UserError("run directory not found", file=str(run_dir))
    if not path.is_file():
        raise UserError("no manifest.json in this run directory", file=str(path))
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"manifest is not valid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    if not isinstance(manifest, dict):
        raise UserError("manifest must be a JSON object", file=str(path))
    for key in REQUIRED_KEYS:
        if key not in manifest:
            raise UserError("manifest lacks a required key", file=str(path), field=key)
    if not isinstance(manifest["cards"], dict) or "sha256" not in manifest["cards"]:
        raise UserError("manifest cards must give sha256", file=str(path), field="cards.sha256")
    return manifest


def _scan_games(run: Run) -> pl.LazyFrame:
    pattern = os.path.join(run.path, "games", "*.parquet")
    if not list(Path(run.path, "games").glob("*.parquet")):
        raise UserError("no games/*.parquet parts in this run directory", file=str(run.path))
    return pl.scan_parquet(pattern)


def compared_on_purpose(run: Run) -> set[str]:
    """What a report compares across runs: the player count and the rule options of the
    game's ``Game.compared_rules`` (Peer-to-Peer: odd_team_compensation)."""
    return set(COMPARED_ON_PURPOSE) | set(run.game.compared_rules)


def same_cards(a: Run, b: Run) -> bool:
    """Did both runs play the same cards? The same file bytes, or two files that still hold
    what each run played and differ only in line endings, a byte-order mark or comments
    (a card list re-saved by a spreadsheet), which the card reader reads alike."""
    if a.sha256 == b.sha256:
        return True
    try:
        paths = [run.manifest["cards"].get("path") for run in (a, b)]
        if not all(paths) or any(file_sha256(path) != run.sha256
                                 for path, run in zip(paths, (a, b))):
            return False   # a file moved or edited since its run: nothing to compare
        return content_sha256(paths[0]) == content_sha256(paths[1])
    except UserError:
        return False


def differences(runs: list[Run]) -> list[str]:
    """Differences that forbid a merge (card file, rule options other than those compared)."""
    diffs = []
    ref = runs[0]
    for run in runs[1:]:
        if not same_cards(ref, run):
            diffs.append(f"card file differs: {ref.path} uses sha256 {ref.sha256[:12]}…, "
                         f"{run.path} uses {run.sha256[:12]}…")
        keys = (set(ref.rules) | set(run.rules)) - compared_on_purpose(ref)
        for key in sorted(keys):
            a, b = ref.rules.get(key, "<unset>"), run.rules.get(key, "<unset>")
            if _canon(a) != _canon(b):
                diffs.append(f"rule option {key} differs: {_canon(a)} in {ref.path}, "
                             f"{_canon(b)} in {run.path}")
    return diffs


def card_column_pattern(stems) -> re.Pattern:
    """Per-card columns ``<stem>_<card index>`` of the given stems (a game's
    ``card_fights.fields``; PLAI: card_att_<k>, ...)."""
    longest_first = sorted(stems, key=len, reverse=True)
    return re.compile(f"({'|'.join(re.escape(s) + '_' for s in longest_first)})(\\d+)")


def _reindex_card_columns(df: pl.LazyFrame, mapping: dict[int, int],
                          pattern: re.Pattern) -> pl.LazyFrame:
    """Rename per-card columns from the run's card indices to the shared card list."""
    rename = {}
    cols = df.collect_schema().names()
    for col in cols:
        m = pattern.fullmatch(col)
        if m and int(m.group(2)) in mapping:
            rename[col] = f"{m.group(1)}{mapping[int(m.group(2))]}"
    if not rename:
        return df
    return df.select(pl.col(c).alias(rename.get(c, c)) for c in cols)


def load_runs(run_dirs: list[str], allow_mixed: bool = False) -> RunSet:
    if isinstance(run_dirs, (str, os.PathLike)):
        run_dirs = [run_dirs]
    if not run_dirs:
        raise UserError("give at least one run directory", field="run_dirs")
    seen: dict[str, str] = {}
    runs = []
    for d in run_dirs:
        real = os.path.realpath(d)
        if real in seen:
            raise UserError(f"the same run directory is given twice ({seen[real]} and {d})",
                            file=str(d))
        seen[real] = str(d)
        runs.append(Run(str(d), read_manifest(str(d))))

    games = {r.manifest["game"] for r in runs}
    if len(games) > 1:
        raise UserError("runs of different games cannot share a report: " + ", ".join(sorted(games)),
                        field="game")
    game = runs[0].manifest["game"]

    diffs = differences(runs)
    if diffs and not allow_mixed:
        raise UserError("refusing to merge runs with different card files or rule options "
                        "(--allow-mixed, or allow_mixed=True in Python, merges them anyway): "
                        + "; ".join(diffs),
                        file=runs[0].path, field="rules" if "rule option" in diffs[0] else "cards.sha256")

    # one card list for all runs, in order of first appearance
    card_ids: list[str] = []
    card_names: list[str] = []
    for run in runs:
        ids = [str(i) for i in run.manifest["cards"].get("ids", [])]
        names = [str(n) for n in run.manifest["cards"].get("names", ids)]
        for i, cid in enumerate(ids):
            if cid not in card_ids:
                card_ids.append(cid)
                card_names.append(names[i] if i < len(names) else cid)

    fights = runs[0].game.card_fights
    fight_columns = card_column_pattern(fights.fields) if fights is not None else None
    frames = []
    notes = []
    config_seen: dict[str, tuple[Run, pl.LazyFrame, tuple]] = {}
    for k, run in enumerate(runs):
        df = _scan_games(run)
        present = df.collect_schema().names()
        has_index = "game_index" in present
        # the count (from the parts' metadata) and the game-index range, streamed
        span = df.select(pl.len().alias("n"), *([pl.col("game_index").min().alias("lo"),
                                                 pl.col("game_index").max().alias("hi")]
                                                if has_index else [])).collect(engine="streaming")
        run.games_found = int(span["n"][0])
        m = run.manifest
        if not m.get("complete", True):
            notes.append(f"{run.path} is marked incomplete; its {run.games_found:,} games are included.")
        elif int(m.get("games", run.games_found)) != run.games_found:
            notes.append(f"{run.path}: the manifest says {int(m['games']):,} games, "
                         f"the parquet parts hold {run.games_found:,}.")
        # the same experiment twice (same seed and settings) would count games twice
        key = _canon({x: m.get(x) for x in ("seed", "players", "rules", "strategies")} | {"sha": run.sha256})
        if has_index and key in config_seen:
            other, other_df, (lo, hi) = config_seen[key]
            # ranges first (cheap); the exact test (a streamed semi-join) only when they overlap
            overlap = span["lo"][0] <= hi and lo <= span["hi"][0] and other_df.select("game_index").join(
                df.select("game_index"), on="game_index", how="semi").select(pl.len()).collect(
                engine="streaming").item() > 0
            if overlap:
                raise UserError(f"runs {other.path} and {run.path} have the same seed and settings "
                                "and overlapping game indices, so their games are copies",
                                file=run.path, field="seed")
        if has_index:
            config_seen.setdefault(key, (run, df, (span["lo"][0], span["hi"][0])))

        names = dict(run.strategy_names)
        extra = [pl.lit(k, dtype=pl.Int32).alias("run"),
                 pl.lit(run.pairing).alias("pairing"),
                 pl.lit(names.get("A", next(iter(names.values()), "?"))).alias("strategy_a"),
                 pl.lit(names.get("B", "")).alias("strategy_b"),
                 pl.lit(run.variant).alias("variant")]
        if "players" not in present:
            extra.append(pl.lit(run.players, dtype=pl.Int8).alias("players"))
        seat_teams = m.get("seat_teams")
        if isinstance(seat_teams, list):
            codes = [{"A": 0, "B": 1}.get(str(t), -1) for t in seat_teams]
            codes = (codes + [-1] * MAX_SEATS)[:MAX_SEATS]
            extra += [pl.lit(c, dtype=pl.Int8).alias(f"seat_team_{s}") for s, c in enumerate(codes)]
            extra += [pl.lit(codes.count(0), dtype=pl.Int8).alias("seats_a"),
                      pl.lit(codes.count(1), dtype=pl.Int8).alias("seats_b")]
        # re-index starting cards into the shared card list
        ids = [str(i) for i in m["cards"].get("ids", [])]
        mapping = {i: card_ids.index(cid) for i, cid in enumerate(ids)}
        if any(i != j for i, j in mapping.items()):
            for s in range(MAX_SEATS):
                col = f"start_card_{s}"
                if col in present:
                    extra.append(pl.col(col).replace(mapping).alias(col))
        df = df.with_columns(extra)
        if fight_columns is not None and any(i != j for i, j in mapping.items()):
            df = _reindex_card_columns(df, mapping, fight_columns)
        frames.append(df)

    merged = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    if "players" in merged.collect_schema().names():
        merged = merged.with_columns(pl.col("players").cast(pl.Int64))

    common = {}
    compared = compared_on_purpose(runs[0])
    for key, value in runs[0].rules.items():
        if key in compared:
            continue
        if all(_canon(r.rules.get(key)) == _canon(value) for r in runs):
            common[key] = value
    return RunSet(runs=runs, games=merged, game=game, card_ids=card_ids, card_names=card_names,
                  mixed=diffs if allow_mixed else [], notes=notes, common_rules=common)
