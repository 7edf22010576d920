"""``simulate experiment NAME``: every point of an experiment into one directory.

Layout::

    OUT/
      experiment.json            the experiment as run: points, games, seed, file
      <point>/cards.csv          the point's card file, when it changes cards
      <point>/run/               an ordinary run directory (manifest.json, games/)
      report/sweep.html|md|csv   the sweep view (reports.sweep)

Every point plays the same seed and game indices 0..games-1, so game i of every point
draws the same random stream (common random numbers) and differences between points
are paired.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reports.tables import text_table
from sim.core.errors import UserError
from sim.core.inputs import parse_count, parse_threads
from sim.core.progress import progress_bar
from sim.core.request import GameRequest
from sim.runs import backends
from sim.runs.rundir import stamped_path
from sim.runs.setup import new_run, play, resume
from sim.studies.experiments.schema import TEAMS, Experiment, Point, apply_card_changes


@dataclass
class ExperimentResult:
    experiment: Experiment
    out: Path
    points: list[dict] = field(default_factory=list)   # name, players, values, run_dir, games...
    report: dict | None = None

    def table_text(self, metrics: tuple[str, ...] | None = None) -> str:
        from reports.sweep import default_metrics, display_tables, sweep_tables

        exp = self.experiment
        metrics = metrics or exp.metrics or default_metrics(exp.game, exp.players)
        table, diffs = sweep_tables(self.points, metrics, game=exp.game)
        axes = [a.key for a in self.experiment.axes]
        (head, rows), (dhead, drows) = display_tables(table, diffs, metrics, axes, game=exp.game)
        text = text_table(head, rows)
        if drows:
            text += "\n\npaired differences against the baseline (same games):\n"
            text += text_table(dhead, drows)
        used = strategies_line(self.points)
        return text + (f"\nstrategies: {used}" if used else "")


# A retuned point's expert in the strategies line: one name for every point (its file is
# the point's own, and a check without --out does not keep it)
RETUNED = "expert (retuned at each point)"


def point_strategies(run_dir: str | Path, retune: bool = False) -> str | None:
    """The game's label of the strategies a point's run played (its ``Game.pairing``);
    with ``retune``, the point's tuned expert (``expert.yaml`` beside ``run_dir``) as
    RETUNED."""
    from sim.core.game import resolve_game

    try:
        manifest = json.loads((Path(run_dir) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    label = resolve_game(manifest["game"]).pairing
    if label is None:
        return None
    text = label(manifest)
    return text.replace(f"@{Path(run_dir).parent / 'expert.yaml'}", RETUNED) if retune else text


def strategies_line(points: list[dict]) -> str:
    """'expert vs expert (2, 4 players)': each pairing with the player counts it played."""
    counts: dict[str, list[int]] = {}
    for p in points:
        if p.get("strategies"):
            counts.setdefault(p["strategies"], [])
            if p["players"] not in counts[p["strategies"]]:
                counts[p["strategies"]].append(p["players"])
    return "; ".join(f"{label} ({', '.join(map(str, sorted(ps)))} "
                     f"{'player' if ps == [1] else 'players'})" for label, ps in counts.items())


def cards_in_words(exp: Experiment) -> str:
    """The card file every point starts from, in the run summary's words (the default
    file by name, any other by path and SHA-256)."""
    from sim.core.csvfile import file_sha256
    from sim.core.game import cards_words, resolve_game

    path = exp.base_cards_path()
    return cards_words(path, file_sha256(path), resolve_game(exp.game).default_cards_path())


def played_line(exp: Experiment, strategies: str) -> str:
    """'played with strategies ...; cards: ...; card changes ...; rules ...': what a check or
    an autobalance played, as a run's summary names it (``strategies``: the pairings by
    player count, '' when unknown)."""
    parts = [f"strategies {strategies}"] if strategies else []
    parts.append(f"cards: {cards_in_words(exp)}")
    if exp.card_overrides:
        parts.append("card changes: " + ", ".join(f"{c.ref}.{c.field} = {c.value}"
                                                  for c in exp.card_overrides))
    if exp.rules:
        parts.append("rules: " + ", ".join(text for text, _ in exp.rules))
    return "played with " + "; ".join(parts)


def default_out(name: str) -> Path:
    return stamped_path(f"experiment-{name}")


def point_cards(exp: Experiment, point: Point, directory: Path) -> str | None:
    """The card file a point plays: the experiment's (or the default) one, or, when the
    point changes cards, the modified file written to ``directory/cards.csv``."""
    if not point.card_changes:
        return exp.cards
    table = apply_card_changes(exp.base_cards_path(), point.card_changes, game=exp.game)
    target = directory / "cards.csv"
    text = table.text()
    if target.exists() and target.read_text(encoding="utf-8") != text:
        raise UserError("holds a different card file than this point plays; choose a new --out",
                        file=str(target), field="--out")
    directory.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return str(target)


def run_experiment(exp: Experiment, *, games: Any = None, out: Any = None,
                   threads: Any = None, progress: bool = True, only=None,
                   command_line: str | None = None, report: bool = True,
                   backend: Any = None, backend_options: Any = None,
                   command: str = "experiment",
                   keep_covering_report: bool = False, stronger_play: float = 0.0,
                   stronger_play_games: int | None = None) -> ExperimentResult:
    """Run every point (or those ``only(point)`` keeps) and write the sweep report.

    An existing OUT from an earlier, interrupted call of the same experiment is continued:
    finished points are kept and unfinished runs resumed. Ctrl-C, SIGTERM and a full disk
    stop it with ``sim.runs.resumable.Stopped`` naming OUT (the CLI prints the command to
    continue). With a cluster backend (``dask``, ``dask-local``) the chunks of every new
    point go out as one list of tasks (points x chunks), so the cluster works on all points
    at once. ``command`` names the command in the stop message (``check`` runs points too).
    With ``keep_covering_report`` an existing report that covers every point played now
    (experiment.json's ``report_points``) is left as it is, and any other rewritten. With
    ``stronger_play`` seconds (or ``stronger_play_games`` game indices) per point, the
    report checks each point's changes against its baseline under stronger play
    (sim.studies.compare_stronger.points_section)."""
    from sim.runs.resumable import stoppable

    out_path = Path(out) if out is not None else default_out(exp.name)
    with stoppable(f"{command} {exp.name}", out_path, out_option=out_path):
        return _run_experiment(exp, games=games, out_path=out_path, threads=threads,
                               progress=progress, only=only, command_line=command_line,
                               report=report, backend=backend,
                               backend_options=backend_options,
                               keep_covering_report=keep_covering_report,
                               stronger_play=stronger_play,
                               stronger_play_games=stronger_play_games)


def _run_experiment(exp: Experiment, *, games: Any, out_path: Path, threads: Any,
                    progress: bool, only, command_line: str | None, report: bool,
                    backend: Any, backend_options: Any,
                    keep_covering_report: bool, stronger_play: float,
                    stronger_play_games: int | None) -> ExperimentResult:
    chosen, owned = backends.resolve(backend, backend_options)
    if chosen.in_process:
        if owned:
            chosen.close()
        chosen = None

    games = exp.games if games is None else parse_count(games, field="--games")
    threads = parse_threads(threads)
    points = [p for p in exp.points() if only is None or only(p)]
    # baselines of the kept points are needed for the paired differences
    names = {p.name for p in points}
    for p in list(points):
        base = exp.baseline_of(p)
        if base.name not in names:
            points.append(base)
            names.add(base.name)
    order = {p.name: i for i, p in enumerate(exp.points())}
    points.sort(key=lambda p: order[p.name])
    record = {"experiment": exp.name, "file": exp.file, "description": exp.description,
              "game": exp.game, "games": games, "seed": exp.seed, "fixed": fixed_settings(exp),
              "cards": cards_in_words(exp),
              "axes": [a.key for a in exp.axes], "points": [p.name for p in points],
              "point_settings": {p.name: point_settings(p, out_path / p.name) for p in points},
              "strategy_files": strategy_files(points),
              "tuning": tuning_settings(exp)}
    covered = _report_points(out_path)
    _claim(out_path, record, exp)
    if keep_covering_report and {p.name for p in points} <= covered:
        report = False
    result = ExperimentResult(exp, out_path)
    total = games * len(points)
    bar = progress_bar(progress, total, f"{exp.name}: {len(points)} points", show_pos=True)
    waiting = []  # (config, run, manifest) of new points whose chunks go to the cluster
    try:
        for index, point in enumerate(points, 1):
            if bar is not None:
                bar.label = f"{exp.name}: point {index}/{len(points)} {point.name}"
            directory = out_path / point.name
            run_dir = directory / "run"
            cards = point_cards(exp, point, directory)
            done = _existing(run_dir)
            if done == "complete":
                if bar is not None:
                    bar.update(games)
            elif done == "partial":
                resume(run_dir, threads=threads, progress=False, command_line=command_line,
                       backend=chosen)
                if bar is not None:
                    bar.update(games)
            else:
                strategies = (retuned(exp, point, directory, cards, threads, command_line,
                                      backend=chosen)
                              if exp.retune else point.strategies)
                if exp.retune:
                    _record_tuned_expert(out_path, point.name, tuned_expert_sha256(directory))
                request = GameRequest(game=exp.game, players=point.players, cards=cards,
                                      rule_overrides=point.rule_overrides,
                                      strategies=strategies or None)
                config, run, manifest = new_run(
                    request, games=games, seed=exp.seed, out=run_dir,
                    chunk_size=exp.chunk_size, command_line=command_line,
                    extra={"experiment": {"name": exp.name, "point": point.name,
                                          "values": point.values}})
                if chosen is not None:
                    waiting.append((config, run, manifest))
                else:
                    with run:
                        play(config, run, manifest, threads=threads, command_line=command_line,
                             after=(lambda t, s, c: bar.update(c)) if bar is not None else None)
            result.points.append({"name": point.name, "players": point.players,
                                  "values": point.values, "run_dir": str(run_dir),
                                  "baseline": exp.baseline_of(point).name,
                                  "is_baseline": point.is_baseline})
        if waiting:
            _play_on_cluster(chosen, waiting, bar, command_line)
    finally:
        for _, run, _ in waiting:
            run.close()
        if chosen is not None and owned:
            chosen.close()
        if bar is not None:
            bar.render_finish()
    from reports.sweep import RunGames, default_metrics, write_sweep_report

    for p in result.points:
        p["games"] = RunGames(p["run_dir"])   # read block by block: memory flat in games
        p["strategies"] = point_strategies(p["run_dir"], exp.retune)
    if report:
        notes = [exp.description] if exp.description else []
        if strategies_line(result.points):
            notes.append(f"Strategies: {strategies_line(result.points)}.")
        if exp.retune:
            notes.append("Each point's retuned expert is the expert.yaml in its directory.")
        notes += [f"Card file: {cards_in_words(exp)}."] + fixed_changes(exp)
        notes.append(f"{games:,} games per point, seed {exp.seed}; every point plays the same "
                     "game indices (common random numbers).")
        sections = []
        if stronger_play or stronger_play_games:
            from sim.studies.compare_stronger import points_section

            edits = [{**p, "baseline_run_dir": str(out_path / p["baseline"] / "run")}
                     for p in result.points if not p["is_baseline"]]
            sections.append(points_section(edits, stronger_play, stronger_play_games,
                                            threads, progress))
        elif any(not p["is_baseline"] for p in result.points):
            notes.append(NOT_CHECKED_NOTE)
        result.report = write_sweep_report(out_path / "report", f"Experiment {exp.name}",
                                           result.points, [a.key for a in exp.axes],
                                           exp.metrics or default_metrics(exp.game, exp.players),
                                           notes, game=exp.game, sections=sections)
        _record_report_points(out_path, [p["name"] for p in result.points])
    return result


NOT_CHECKED_NOTE = ("The points' changes are not checked under stronger play here: "
                    "simulate experiment NAME --stronger-play SECONDS checks each against its "
                    "baseline with the search player on every side (or simulate compare "
                    "BASELINE/run POINT/run for one point).")


def _report_points(out: Path) -> set[str]:
    """The points the report in ``out`` covers (experiment.json's ``report_points``); empty
    when there is no report or its points are not recorded."""
    try:
        record = json.loads((out / "experiment.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(record, dict) or not (out / "report" / "sweep.md").is_file():
        return set()   # an experiment.json that is not an object is refused by _claim
    return set(record.get("report_points", []))


def _record_report_points(out: Path, names: list[str]) -> None:
    record = json.loads((out / "experiment.json").read_text(encoding="utf-8"))
    record["report_points"] = names
    _write_record(out, record)


def _write_record(out: Path, record: dict) -> None:
    """experiment.json in ``out``: what the experiment plays (``_claim``), kept up to date."""
    (out / "experiment.json").write_text(json.dumps(record, indent=2, default=str) + "\n",
                                         encoding="utf-8")


def fixed_settings(exp: Experiment) -> list[str]:
    """What every point plays besides the axes, as experiment.json records it to compare
    on a rerun: the card file given, the card changes and the rule options."""
    return ([f"Card file: {exp.cards}."] if exp.cards else []) + fixed_changes(exp)


def fixed_changes(exp: Experiment) -> list[str]:
    """The card changes and rule options every point plays (the report's reader must see
    the deck was changed)."""
    lines = []
    if exp.card_overrides:
        lines.append("Cards changed at every point: " + ", ".join(
            f"{c.ref}.{c.field} = {c.value}" for c in exp.card_overrides) + ".")
    if exp.rules:
        lines.append("Rule options at every point: " + ", ".join(t for t, _ in exp.rules) + ".")
    return lines


def retuned(exp: Experiment, point: Point, directory: Path, cards: str | None,
            threads: Any, command_line: str | None, backend: Any = None) -> dict:
    """The point's strategies with 'expert' replaced by a strategy file tuned for this
    point's players, cards and rules (``directory/expert.yaml``; kept and reused when the
    experiment is continued), tuned on the experiment's ``backend`` (a Backend or None).
    """
    from sim.studies.experiments.schema import EXPERT
    from sim.studies.tune import tune_strategy

    target = directory / "expert.yaml"
    if not target.is_file():
        settings = dict(exp.tune)
        tune_strategy(game=exp.game, players=point.players, out=target, cards=cards,
                      rule_overrides=point.rule_overrides, threads=threads,
                      budget=settings.get("budget"), seed=settings.get("seed", exp.seed),
                      base=settings.get("base", "weighted"),
                      games_per_eval=settings.get("games_per_eval"),
                      check_games=settings.get("check_games"), progress=False,
                      command_line=command_line, backend=backend, resume=True,
                      hold=settings.get("hold"))
    return {team: f"@{target}" if spec == EXPERT else spec
            for team, spec in point.strategies.items()}


def _play_on_cluster(backend: Any, waiting: list, bar: Any, command_line: str | None) -> None:
    """Submit the chunks of every waiting point at once, then finish each run (its chunks
    are on disk, so the runner only records the session and the summary is written)."""
    tasks = [task for i, (_, run, manifest) in enumerate(waiting)
             for task in backends.pending_tasks(run, manifest, tag=i)]
    for result in backend.run_tasks(tasks):
        if bar is not None:
            bar.update(result.count)
    for config, run, manifest in waiting:
        play(config, run, manifest, threads=1, command_line=command_line)


def point_settings(point: Point, directory: Path) -> dict:
    """What a point plays besides the experiment-wide settings: a point of the same name
    in an existing OUT is reused only when these are the same. ``directory`` is the
    point's directory in OUT, where a retuned point keeps its expert.yaml."""
    return {"players": point.players, "rules": list(point.rule_overrides),
            "strategies": {team: absolute_spec(spec) for team, spec in point.strategies.items()},
            "cards": [f"{c.ref}.{c.field} = {c.value}" for c in point.card_changes],
            "tuned_expert": tuned_expert_sha256(directory)}


def tuning_settings(exp: Experiment) -> dict:
    """Whether 'expert' is tuned at every point, and with which ``tune:`` settings: the
    same spec 'expert' plays the shipped or a tuned player."""
    return {"retune": exp.retune, "tune": dict(exp.tune) if exp.retune else {}}


def tuned_expert_sha256(directory: Path) -> str | None:
    """The SHA-256 of the point's tuned ``expert.yaml``; None when it has none (yet)."""
    from sim.core.csvfile import file_sha256

    target = Path(directory) / "expert.yaml"
    return file_sha256(str(target)) if target.is_file() else None


def _record_tuned_expert(out: Path, name: str, digest: str | None) -> None:
    """Record the digest of the expert a point was just tuned to in experiment.json, so a
    later continue sees an edited or replaced expert.yaml."""
    record = json.loads((out / "experiment.json").read_text(encoding="utf-8"))
    if record.get("point_settings", {}).get(name, {}).get("tuned_expert") == digest:
        return
    record["point_settings"][name]["tuned_expert"] = digest
    _write_record(out, record)


def spec_files(spec: str) -> list[str]:
    """The strategy files ('@path') a spec plays: the spec itself ('@policy.yaml') or a
    parameter of it ('search:base=@policy.yaml')."""
    if not isinstance(spec, str):
        return []
    text = spec.strip()
    if text.startswith("@"):
        return [text[1:]]
    _, _, rest = text.partition(":")
    return [value.strip()[1:] for _, eq, value in
            (item.partition("=") for item in rest.split(","))
            if eq and value.strip().startswith("@")]


def absolute_spec(spec: str) -> str:
    """A strategy spec with every file ('@path', also as a parameter) as an absolute path:
    the same file from another working directory is the same strategy."""
    from sim.studies.experiments.model import with_spec_files

    if not isinstance(spec, str):
        return spec
    return with_spec_files(spec, lambda path: str(Path(path).resolve()))


def strategy_files(points: list[Point]) -> dict[str, str | None]:
    """The SHA-256 of every strategy file ('@path', also as a parameter) the points play:
    an edited file plays other weights under the same name."""
    from sim.core.csvfile import file_sha256

    paths = sorted({path for p in points for spec in p.strategies.values()
                    for path in spec_files(absolute_spec(spec))})
    return {path: file_sha256(path) for path in paths}


def _differences(old: dict, record: dict) -> list[str]:
    """What the experiment in an existing OUT (its experiment.json) plays differently from
    ``record``, in words; [] when every point both name plays the same."""
    from sim.runs.resumable import settings_diff

    same = ("experiment", "games", "seed")
    diff = settings_diff({k: old.get(k) for k in same}, {k: record.get(k) for k in same})
    found = [diff] if diff else []
    # the fixed cards and rules too, where the marker records them
    if "fixed" in old and old["fixed"] != record.get("fixed"):
        found.append("the cards and rules every point plays differ")
    if "tuning" in old and old.get("tuning_filled", old["tuning"]) != \
            record.get("tuning_filled", record.get("tuning")):
        found.append(f"the tuning of 'expert' differs: {_tuning_words(old['tuning'])} there, "
                     f"{_tuning_words(record.get('tuning'))} now")
    if "point_settings" not in old:   # a marker without them: only the same points
        if old.get("points") != record.get("points"):
            found.append("the points differ")
        return found
    words = {"players": "player count", "rules": "rule options", "cards": "card changes"}
    where: dict[str, list[str]] = {}   # a difference -> the points it is found at
    shared = [name for name in record["point_settings"] if name in old["point_settings"]]
    for name in shared:
        there, now = old["point_settings"][name], record["point_settings"][name]
        old_teams, new_teams = there.get("strategies", {}), now["strategies"]
        for team in sorted(set(old_teams) | set(new_teams)):
            if old_teams.get(team) != new_teams.get(team):
                where.setdefault(f"the strategies differ: {team} {_spec(old_teams.get(team))} "
                                 f"there, {_spec(new_teams.get(team))} now", []).append(name)
        # a tuned expert.yaml not yet recorded there (stopped as it was written) is kept
        if there.get("tuned_expert") and now.get("tuned_expert") \
                and there["tuned_expert"] != now["tuned_expert"]:
            where.setdefault("the tuned expert.yaml was edited since the point played it",
                             []).append(name)
        for key, label in words.items():
            if there.get(key) != now[key]:
                where.setdefault(f"the {label} differ: {there.get(key)} there, {now[key]} now",
                                 []).append(name)
    for text, names in where.items():
        scope = "every point" if len(names) == len(shared) else ", ".join(names)
        found.append(f"{text} (at {scope})")
    if "cards" in old and old["cards"] != record.get("cards"):
        found.append(f"the card file differs: {old['cards']} there, {record.get('cards')} now")
    for path, digest in record.get("strategy_files", {}).items():
        before = old.get("strategy_files", {}).get(path, digest)
        if before != digest:
            found.append(f"the strategy file {path} was edited since the points played it")
    return list(dict.fromkeys(found))


def _resolved(record: dict, exp: Experiment) -> dict:
    """``record`` (an experiment.json) with equivalent settings written alike, to compare:
    card changes by card id (TE12, not Technology-12), a team without a strategy as the
    game's default, ``tune:`` with its defaults filled in."""
    from sim.core.game import resolve_game
    from sim.studies.experiments.cardfile import CardCsv
    from sim.studies.tune_search import DEFAULT_CHECK_GAMES, DEFAULT_GAMES_PER_EVAL

    game = resolve_game(record.get("game") or exp.game)
    try:
        table = CardCsv(exp.base_cards_path(), game.name)
    except (UserError, ValueError):
        table = None

    def card_change(text: str) -> str:   # "REF.FIELD = VALUE" with the card's id
        where, equals, value = str(text).partition(" = ")
        ref, dot, field_name = where.rpartition(".")
        if table is None or not equals or not dot:
            return text
        try:
            ids = ", ".join(table.card_id(row) for row in table.find_all(ref))
        except KeyError:
            return text
        return f"{ids}.{field_name} = {value}"

    cards_sentence = "Cards changed at every point: "
    fixed = [cards_sentence + ", ".join(card_change(c) for c in line[len(cards_sentence):-1]
                                        .split(", ")) + "."
             if isinstance(line, str) and line.startswith(cards_sentence) else line
             for line in record.get("fixed") or []]
    default = absolute_spec(game.default_strategy)
    points = {}
    for name, settings in (record.get("point_settings") or {}).items():
        strategies = dict(settings.get("strategies") or {})
        if game.strategy_kind == "teams":
            strategies = {**{team: default for team in TEAMS}, **strategies}
        points[name] = {**settings, "strategies": strategies,
                        "cards": [card_change(c) for c in settings.get("cards") or []]}
    tuning = dict(record.get("tuning") or {})
    if tuning.get("retune"):
        arena = game.tune_arena
        defaults = {"budget": arena.default_budget if arena else None,
                    "games_per_eval": DEFAULT_GAMES_PER_EVAL, "check_games": DEFAULT_CHECK_GAMES,
                    "base": "weighted", "seed": record.get("seed")}
        tuning["tune"] = {**defaults, **(tuning.get("tune") or {})}
    resolved = {**record, "tuning_filled": tuning}   # compared; "tuning" stays for words
    if "fixed" in record:
        resolved["fixed"] = fixed
    if "point_settings" in record:
        resolved["point_settings"] = points
    return resolved


def _tuning_words(tuning: dict | None) -> str:
    if not tuning or not tuning.get("retune"):
        return "the shipped expert (no retune)"
    settings = ", ".join(f"{k}: {v}" for k, v in sorted(tuning.get("tune", {}).items()))
    return f"retune with tune {{{settings}}}" if settings else "retune"


def _spec(spec: str | None) -> str:
    return "the game's default" if spec is None else repr(spec)


def _claim(out: Path, record: dict, exp: Experiment) -> None:
    """Take ``out`` for the experiment ``record`` describes: a new or empty directory, or
    one holding the same experiment (its points of the same name play the same settings;
    other points are added)."""
    marker = out / "experiment.json"
    if out.exists() and not out.is_dir():
        raise UserError("is a file, not a directory; choose a new --out", file=str(out),
                        field="--out")
    if out.exists() and any(out.iterdir()):
        if not marker.is_file():
            raise UserError("is not empty and holds no experiment; choose a new --out",
                            file=str(out), field="--out")
        try:
            old = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = None
        if not isinstance(old, dict):
            raise UserError("holds an unreadable experiment.json; choose a new --out",
                            file=str(out), field="--out")
        found = _differences(_resolved(old, exp), _resolved(record, exp))
        if found:
            shown = "; ".join(found[:4]) + ("; ..." if len(found) > 4 else "")
            raise UserError(f"holds a different experiment ({shown}); continue it with the "
                            "settings it started with, or choose a new --out",
                            file=str(out), field="--out")
        if "point_settings" in old:   # the points an earlier call played stay recorded
            kept = [name for name in old.get("points", []) if name not in record["points"]]
            record = {**record, "points": kept + record["points"],
                      "point_settings": {**{n: old["point_settings"][n] for n in kept
                                            if n in old["point_settings"]},
                                         **record["point_settings"]},
                      "strategy_files": {**old.get("strategy_files", {}),
                                         **record["strategy_files"]}}
        if "report_points" in old:   # the report stays until a run rewrites it
            record = {**record, "report_points": old["report_points"]}
    from sim.core.output import writing

    with writing("the experiment's directory", out):
        out.mkdir(parents=True, exist_ok=True)
        _write_record(out, record)


def _existing(run_dir: Path) -> str:
    manifest = run_dir / "manifest.json"
    if not manifest.is_file():
        return "new"
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        raise UserError("holds an unreadable run; choose a new --out", file=str(run_dir),
                        field="--out") from None
    return "complete" if data.get("complete") else "partial"
