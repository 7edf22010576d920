"""Reading experiments.yaml into the model (``model.py``): the keys each section takes
and the parser of every value. Every problem is one ``UserError`` naming the file, the
line and the key (``experiment.section.key``), found from the YAML node marks
(``sim.core.yaml_lines``) before any game runs; ``load`` and ``get`` then check every
point with ``validate.py``."""
from __future__ import annotations

import math
import re
from pathlib import Path

from sim.core.errors import UserError
from sim.core.game import DEFAULT_GAME, resolve_game
from sim.core.yaml_lines import Located, compose, kind_of, located
from sim.studies.experiments.model import (EXPERT, AutobalanceSpec, Axis, CardChange,
                                           Condition, Experiment, Vary, fmt_value,
                                           rule_override, same_value, spec_files_next_to,
                                           split_spec)
from sim.studies.experiments.validate import validate_experiment

DEFAULT_FILE = "experiments.yaml"
EXPERIMENT_KEYS = ("description", "game", "players", "games", "seed", "strategies", "cards",
                   "card_overrides", "rules", "sweep", "baseline", "metrics", "checks",
                   "autobalance", "chunk_size", "retune", "tune")
TUNE_KEYS = ("budget", "games_per_eval", "check_games", "base", "seed", "hold")
CONDITION_KEYS = ("metric", "players", "where", "max", "min", "max_abs", "target", "tolerance",
                  "confidence", "name")
AUTOBALANCE_KEYS = ("vary", "targets", "games", "rounds", "confidence", "batches")


def read_yaml(path: str | Path) -> Located:
    """The experiments file as Located values (a missing or unreadable file, or bad YAML,
    is one UserError)."""
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError("experiments file not found" + _where_ready_made(path),
                        file=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the experiments file ({exc})", file=path) from None
    return located(compose(text, path), path)


def _where_ready_made(path: str) -> str:
    """Where the project's ready-made experiments are, for a designer outside its folder:
    the clone's experiments.yaml when the code runs from one; else where to find it."""
    if path != DEFAULT_FILE:
        return ""
    shipped = Path(__file__).resolve().parents[3] / DEFAULT_FILE
    if shipped.is_file():
        return f" in this folder (the ready-made ones: --file {shipped})"
    return (" in this folder (the ready-made ones are in experiments.yaml at the root of "
            "cardsim's repository; give a file with --file)")


def load(path: str | Path = DEFAULT_FILE, *, validate: bool = True) -> dict[str, Experiment]:
    """Every experiment in the file, by name (keys starting with '_' or '.' are templates
    for YAML anchors and are skipped)."""
    root = read_yaml(path)
    entries = root.mapping("a mapping of experiment names to experiments")
    experiments = {}
    for name, node in entries.items():
        if name.startswith(("_", ".")):
            continue
        experiments[name] = _experiment(name, node, Path(path))
    if validate:
        for experiment in experiments.values():
            validate_experiment(experiment)
    return experiments


def get(name: str, path: str | Path = DEFAULT_FILE) -> Experiment:
    """One experiment by name (only that one is validated)."""
    experiments = load(path, validate=False)
    if name not in experiments:
        known = ", ".join(experiments) or "(none)"
        raise UserError(f"no experiment '{name}'; experiments in the file: {known}",
                        file=str(path), field="EXPERIMENT")
    experiment = experiments[name]
    validate_experiment(experiment)
    return experiment


def _int(node: Located, lo: int | None = None, hi: int | None = None) -> int:
    value = node.v
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise node.error(f"expected a whole number, got {kind_of(node.v)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f"at least {lo}" if hi is None else f"from {lo} to {hi}"
        raise node.error(f"expected a whole number {bounds}, got {value}")
    return value


def _number(node: Located) -> float:
    value = node.v
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise node.error(f"expected a number, got {kind_of(value)}")
    if not math.isfinite(float(value)):
        raise node.error("expected a finite number")
    return float(value)


def _count(node: Located, field_name: str) -> int:
    from sim.core.inputs import parse_count

    try:
        return parse_count(node.v, field=node.key)
    except UserError as exc:
        raise node.error(exc.message) from None


def _experiment(name: str, node: Located, path: Path) -> Experiment:
    entries = node.known(EXPERIMENT_KEYS)
    exp = Experiment(name=name, file=str(path), loc=node)
    if "description" in entries:
        exp.description = str(entries["description"].v or "")
    if "game" in entries:
        from sim.core.game import game_modules

        game = entries["game"]
        if not isinstance(game.v, str) or game.v not in game_modules():
            raise game.error(f"unknown game '{game.v}'; choose one of: {', '.join(game_modules())}")
        exp.game = game.v
    if "players" in entries:
        p = entries["players"]
        items = p.v if isinstance(p.v, list) else [p]
        if not items:
            raise p.error("expected at least one player count")
        counts = [_int(item, 1, 1000) for item in items]
        if len(set(counts)) != len(counts):
            raise p.error("a player count is listed twice")
        exp.players = tuple(counts)
    if "games" in entries:
        exp.games = _count(entries["games"], "games")
    if "chunk_size" in entries:
        exp.chunk_size = _count(entries["chunk_size"], "chunk_size")
    if "seed" in entries:
        exp.seed = _int(entries["seed"], 0, 2**63 - 1)
    if "strategies" in entries:
        teams = {}
        for team, spec in entries["strategies"].mapping().items():
            teams[_strategy_key(team, exp.game, spec)] = _strategy(spec)
        exp.strategies = teams
    if "cards" in entries:
        cards = entries["cards"]
        if not isinstance(cards.v, str) or not cards.v.strip():
            raise cards.error("expected the path of a card file (CSV)")
        resolved = (path.parent / cards.v).resolve() if not Path(cards.v).is_absolute() else Path(cards.v)
        if not resolved.is_file():
            raise cards.error(f"card file not found: {resolved}")
        exp.cards = str(resolved)
    if "card_overrides" in entries:
        changes = []
        for key, value in entries["card_overrides"].mapping().items():
            ref, field_name = _card_key(key, value, exp.game)
            changes.append(CardChange(ref, field_name, value.v, value))
        exp.card_overrides = tuple(changes)
    if "rules" in entries:
        rules = []
        for key, value in entries["rules"].mapping().items():
            option, _, count = key.partition(".")
            count_value = None
            if count:
                if not count.isdigit():
                    raise value.error(f"expected OPTION or OPTION.N (a player count), got '{key}'")
                count_value = int(count)
            rules.append((rule_override(option, count_value, value.plain()), value))
        exp.rules = tuple(rules)
    if "sweep" in entries:
        exp.axes = tuple(_axis(key, value, exp.game)
                         for key, value in entries["sweep"].mapping().items())
        _refuse_unplayed_count_axes(exp)
    if "baseline" in entries:
        baseline = {}
        axes = {axis.key: axis for axis in exp.axes}
        for key, value in entries["baseline"].mapping().items():
            if key not in axes:
                raise value.error(f"'{key}' is not a sweep axis of this experiment; axes: "
                                  f"{', '.join(axes) or '(none)'}")
            if not any(same_value(value.v, v) for v in axes[key].values):
                raise value.error(f"{value.v!r} is not one of the swept values "
                                  f"{list(axes[key].values)}")
            baseline[key] = value.v
        exp.baseline = baseline
    if "metrics" in entries:
        exp.metrics = tuple(_metric_name(item, exp.game) for item in entries["metrics"].items_list())
    if "checks" in entries:
        exp.checks = tuple(_condition(item, exp) for item in entries["checks"].items_list())
    if "autobalance" in entries:
        exp.autobalance = _autobalance(entries["autobalance"], exp)
    _retune(entries, exp)
    if not exp.metrics:
        from reports.sweep import default_metrics

        exp.metrics = default_metrics(exp.game, exp.players)
    return exp


def _retune(entries: dict, exp: Experiment) -> None:
    """``retune: true`` (and its ``tune:`` settings): every strategy named 'expert' is tuned
    for each point's configuration before the point plays (slow: one simulate tune each)."""
    if "retune" in entries:
        if not isinstance(entries["retune"].v, bool):
            raise entries["retune"].error("expected true or false")
        exp.retune = entries["retune"].v
    if "tune" in entries:
        settings = entries["tune"].known(TUNE_KEYS)
        for key, node in settings.items():
            if key == "base":
                if not isinstance(node.v, str) or not node.v.strip():
                    raise node.error("expected a strategy spec")
                exp.tune[key] = spec_files_next_to(node.v.strip(), node.file)
            elif key == "seed":
                exp.tune[key] = _int(node, 0, 2**63 - 1)
            elif key == "hold":   # the names are checked against the game's in validate.py
                if not isinstance(node.v, str) or not node.v.strip():
                    raise node.error("expected NAME[=VALUE],... as simulate tune --hold "
                                     "takes it")
                exp.tune[key] = node.v.strip()
            else:
                exp.tune[key] = _count(node, key)
            exp.tune_lines[key] = node
    named = [team for team, (name, _) in exp.strategies.items() if name == EXPERT]
    where = entries.get("retune") or entries.get("strategies") or exp.loc
    if exp.retune and not named:
        raise where.error("retune: true tunes the strategies named 'expert'; give one, e.g. "
                          "strategies: {A: expert, B: expert}")
    if named and not exp.retune and not _expert_is_shipped(exp.game):
        raise (entries.get("strategies") or exp.loc).error(
            f"{exp.game} has no shipped 'expert'; it is tuned at every point only with "
            "retune: true (slow); or give a strategy file, e.g. A: '@expert.yaml'")


def _expert_is_shipped(game: str) -> bool:
    """A game whose strategies/ registers 'expert' plays it without retune."""
    from sim.core.strategy import registry

    package = resolve_game(game).strategy_package
    return package is not None and EXPERT in registry(package)


def _strategy_key(key: str, game: str, node: Located) -> str:
    """A strategies key in the game's canonical form (its ``Game.strategy_key``: team A or
    B; seatN, N or all)."""
    try:
        return resolve_game(game).strategy_key(str(key))
    except ValueError as exc:
        raise node.error(str(exc)) from None


def _strategy(node: Located) -> tuple[str, dict]:
    if isinstance(node.v, str):
        spec = spec_files_next_to(node.v, node.file)
        if spec.startswith("@"):
            return spec, {}
        return split_spec(spec)
    entries = node.mapping("a strategy: 'name:param=value' or a mapping with 'name'")
    if "name" not in entries:
        raise node.error("a strategy mapping needs 'name' (its other keys are parameters)")
    params = {key: _number(value) for key, value in entries.items() if key != "name"}
    return str(entries["name"].v), params


def _card_key(key: str, node: Located, game: str = DEFAULT_GAME) -> tuple[str, str]:
    """REF.FIELD of a card change: the field is what follows the last dot (so a ref may be
    a name with spaces, or a numeric PLAI id: ``5.strength``), and must be one of the
    game's editable fields (sim.studies.experiments.cardfile)."""
    from sim.studies.experiments.cardfile import editable_fields

    ref, dot, field_name = str(key).rpartition(".")
    ref = ref.strip()
    if not dot or not ref:
        example = resolve_game(game).card_ref_example
        raise node.error(f"expected CARD.FIELD (e.g. {example}), got '{key}'")
    fields = editable_fields(game)
    if fields is not None and field_name not in fields:
        raise node.error(f"unknown card field '{field_name}'; editable fields for {game}: "
                         f"{', '.join(fields)}")
    return ref, field_name


def _values(node: Located) -> tuple:
    """A list of values, or a range {from, to, step}."""
    if isinstance(node.v, dict):
        entries = node.known(("from", "to", "step"))
        for needed in ("from", "to"):
            if needed not in entries:
                raise node.error(f"a range needs '{needed}' (and optionally 'step')")
        start, stop = _number(entries["from"]), _number(entries["to"])
        step = _number(entries["step"]) if "step" in entries else 1.0
        if step <= 0:
            raise entries["step"].error("step must be positive")
        if stop < start:
            raise entries["to"].error(f"'to' ({fmt_value(stop)}) is below 'from' "
                                      f"({fmt_value(start)}); a range counts up from 'from' to "
                                      "'to' (list the values for another order)")
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count > 10_000:
            raise node.error(f"the range gives {count} values; expected at most 10000")
        whole = all(float(x).is_integer() for x in (start, stop, step))
        values = [start + i * step for i in range(count)]
        return tuple(int(v) if whole else round(v, 10) for v in values)
    items = node.items_list("a list of values or a range {from, to, step}")
    if not items:
        raise node.error("expected at least one value")
    values = tuple(item.plain() for item in items)
    for i, value in enumerate(values):
        if value in values[:i]:
            raise items[i].error(f"value {value!r} is listed twice")
    return values


def _refuse_unplayed_count_axes(exp: Experiment) -> None:
    """A sweep of rule.OPTION.N where the experiment plays no N-player game would make
    every point play the same games: refused at its line."""
    for axis in exp.axes:
        if axis.kind == "rule" and axis.target[1] is not None \
                and axis.target[1] not in exp.players:
            option, count = axis.target
            played = ", ".join(map(str, exp.players))
            raise axis.loc.error(
                f"{axis.key} sets {option} at {count} players only, and this experiment plays "
                f"{played} player{'' if list(exp.players) == [1] else 's'}: every point would "
                f"play the same games; sweep rule.{option} (every count) or add {count} to "
                "players")


def _axis(key: str, node: Located, game: str = DEFAULT_GAME) -> Axis:
    values = _values(node)
    head, _, rest = key.partition(".")
    if head in ("rule", "rules") and rest:
        option, _, count = rest.partition(".")
        if count and not count.isdigit():
            raise node.error(f"expected rule.OPTION or rule.OPTION.N, got '{key}'")
        return Axis(key, "rule", (option, int(count) if count else None), values, node)
    if head in ("card", "cards") and rest:
        ref, field_name = _card_key(rest, node, game)
        return Axis(key, "card", (ref, field_name), values, node)
    if head in ("strategy", "strategies") and rest:
        team, _, param = rest.partition(".")
        game_obj = resolve_game(game)
        try:
            team = game_obj.strategy_key(team)
        except ValueError:
            if game_obj.strategy_kind == "seats":
                raise node.error(f"expected strategy.all, strategy.seatN or strategy.seatN.PARAM, "
                                 f"got '{key}'") from None
            slots = game_obj.strategy_slots(max(game_obj.player_counts))
            raise node.error(f"expected {', '.join(f'strategy.{t}' for t in slots)} or "
                             f"strategy.{slots[0]}.PARAM, got '{key}'") from None
        if param:
            for i, value in enumerate(values):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise node.v[i].error(f"a strategy parameter takes numbers, got {value!r}") \
                        if isinstance(node.v, list) else node.error("expected numbers")
        return Axis(key, "strategy", (team, param or None), values, node)
    raise node.error(f"unknown sweep axis '{key}'; expected rule.OPTION[.N], card.CARD.FIELD, "
                     "strategy.TEAM or strategy.TEAM.PARAM")


def _metric_name(node: Located, game: str = DEFAULT_GAME) -> str:
    from reports.sweep import all_metrics, metrics_for

    valid = metrics_for(game)
    if node.v not in valid and node.v not in all_metrics():
        raise node.error(f"unknown metric '{node.v}'; metrics: {', '.join(valid)}")
    if node.v not in valid:
        raise node.error(f"metric '{node.v}' does not apply to {game}; metrics: {', '.join(valid)}")
    return node.v


def _condition(node: Located, exp: Experiment, *, target: bool = False) -> Condition:
    entries = node.known(CONDITION_KEYS)
    if "metric" not in entries:
        raise node.error("needs 'metric'")
    metric = _metric_name(entries["metric"], exp.game)
    players = None
    if "players" in entries:
        p = entries["players"]
        items = p.v if isinstance(p.v, list) else [p]
        players = tuple(_int(item, 1, 1000) for item in items)
        for count, item in zip(players, items):
            if count not in exp.players:
                raise item.error(f"the experiment does not play {count} players "
                                 f"(players: {list(exp.players)})")
    where = []
    if "where" in entries:
        axes = {axis.key: axis for axis in exp.axes}
        for key, value in entries["where"].mapping().items():
            if key not in axes:
                raise value.error(f"'{key}' is not a sweep axis; axes: {', '.join(axes) or '(none)'}")
            if not any(same_value(value.v, v) for v in axes[key].values):
                raise value.error(f"{fmt_value(value.v)} is not one of the swept values of "
                                  f"{key} ({', '.join(fmt_value(v) for v in axes[key].values)})")
            where.append((key, value.v))
    bounds = [name for name in ("max", "min", "max_abs", "target") if name in entries]
    if not bounds:
        raise node.error("needs a bound: max, min, max_abs, or target with tolerance")
    lo, hi = -math.inf, math.inf
    words = []
    if "target" in entries:
        if len(bounds) > 1:
            raise entries["target"].error("use target (with tolerance) alone, not with max/min")
        centre = _number(entries["target"])
        if "tolerance" not in entries:
            raise entries["target"].error("target needs 'tolerance' (e.g. target: 50, tolerance: 1)")
        tol = _number(entries["tolerance"])
        if tol < 0:
            raise entries["tolerance"].error("tolerance must be >= 0")
        lo, hi = centre - tol, centre + tol
        words.append(f"{fmt_value(centre)} ± {fmt_value(tol)}")
    else:
        if "tolerance" in entries:
            raise entries["tolerance"].error("tolerance goes with target")
        if "max_abs" in entries:
            a = _number(entries["max_abs"])
            if a < 0:
                raise entries["max_abs"].error("max_abs must be >= 0")
            lo, hi = -a, a
            words.append(f"|x| ≤ {fmt_value(a)}")
        if "min" in entries:
            lo = max(lo, _number(entries["min"]))
            words.append(f"≥ {fmt_value(entries['min'].v)}")
        if "max" in entries:
            hi = min(hi, _number(entries["max"]))
            words.append(f"≤ {fmt_value(entries['max'].v)}")
        if lo > hi:
            raise node.error("the bounds leave no allowed value (min above max)")
    confidence = 0.95
    if "confidence" in entries:
        confidence = _number(entries["confidence"])
        if not 0.5 <= confidence < 1:
            raise entries["confidence"].error("expected a confidence from 0.5 to below 1 (e.g. 0.95)")
    scope = f" at {'/'.join(map(str, players))}p" if players else ""
    scope += "".join(f", {k}={fmt_value(v)}" for k, v in where)
    label = str(entries["name"].v) if "name" in entries else f"{metric}{scope} {' and '.join(words)}"
    return Condition(metric, lo, hi, players, tuple(where), confidence, label, node)


def _autobalance(node: Located, exp: Experiment) -> AutobalanceSpec:
    entries = node.known(AUTOBALANCE_KEYS)
    if "vary" not in entries or "targets" not in entries:
        raise node.error("autobalance needs 'vary' (the card changes allowed) and 'targets'")
    vary = []
    for key, value in entries["vary"].mapping().items():
        ref, field_name = _card_key(key, value, exp.game)
        if isinstance(value.v, dict):
            bounds = value.known(("min", "max", "step"))
            if "min" not in bounds or "max" not in bounds:
                raise value.error("a range needs min and max, e.g. {min: 9, max: 13}")
            lo, hi = _int(bounds["min"]), _int(bounds["max"])
            step = _int(bounds["step"], 1) if "step" in bounds else 1
            if lo > hi:
                raise value.error("min is above max")
            choices = tuple(range(lo, hi + 1, step))
        else:
            choices = _values(value)
        vary.append(Vary(ref, field_name, choices, value))
    targets = tuple(_condition(item, exp) for item in entries["targets"].items_list())
    if not targets:
        raise entries["targets"].error("expected at least one target")
    games = _count(entries["games"], "games") if "games" in entries else None
    rounds = _int(entries["rounds"], 1, 1000) if "rounds" in entries else 10
    batches = _int(entries["batches"], 1, 100) if "batches" in entries else 4
    confidence = 0.95
    if "confidence" in entries:
        confidence = _number(entries["confidence"])
        if not 0.5 <= confidence < 1:
            raise entries["confidence"].error("expected a confidence from 0.5 to below 1")
    return AutobalanceSpec(tuple(vary), targets, games, rounds, batches, confidence)
