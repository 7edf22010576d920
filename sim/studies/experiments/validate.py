"""Checking an experiment before any game runs: every point is configured once (no
games), and a bad rule value, strategy, card reference or card value is reported at its
line in the YAML file; ``apply_card_changes`` writes a point's card changes."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from sim.core.errors import UserError
from sim.core.game import DEFAULT_GAME
from sim.core.yaml_lines import Located
from sim.studies.experiments.model import EXPERT, CardChange, Experiment, join_spec


def _relocate(exc: UserError, node: Located, renamed: dict | None = None) -> UserError:
    """``exc`` (from configuring a point) at ``node``'s line of the YAML file, with where
    the game's loader found it; a changed card file written for the check is named as
    the card file it was made from (its lines are the same)."""
    file = exc.file
    changed = ""
    if renamed and file in renamed:
        file, changed = renamed[file], " after the change"
    where = ""
    if file and file != node.file:
        where = f" (in {file}" + (f":{exc.line}" if exc.line else "") + (
            f", field '{exc.field}'" if exc.field else "") + changed + ")"
    return node.error(exc.message + where)


def apply_card_changes(base_path: str, changes, *, game: str | None = DEFAULT_GAME,
                       strict: bool = True):
    """The base card file with ``changes`` applied, as a CardCsv; bad refs raise UserError
    at the change's YAML line. A ref that names several rows (a PLAI card printed under
    several numerals) changes every one of them (sim.studies.experiments.cardfile)."""
    from sim.studies.experiments.cardfile import CardCsv

    table = CardCsv(base_path, game)
    for change in changes:
        try:
            table.set_all(table.find_all(change.ref), change.field, change.value)
        except KeyError as exc:
            raise change.loc.error(str(exc.args[0])) from None
    return table


def validate_experiment(exp: Experiment) -> None:
    """Configure every point once (no games): a bad rule value, strategy, card reference,
    card value or held weight is reported at its line in the YAML file."""
    from sim.core.game import configure

    _refuse_settings_given_twice(exp)
    base = exp.base_cards_path()
    renamed: dict[str, str] = {}   # written card file -> the file it was made from
    with tempfile.TemporaryDirectory(prefix="cardsim-exp-") as tmp:
        def cards_for(changes) -> str | None:
            if not changes:
                return exp.cards
            table = apply_card_changes(base, changes, game=exp.game)
            path = str(table.write(Path(tmp) / f"cards-{abs(hash(tuple((c.ref, c.field, str(c.value)) for c in changes)))}.csv"))
            renamed[path] = base
            return path

        def attempt(node: Located, **kwargs) -> None:
            if exp.retune and kwargs.get("strategies"):   # 'expert' does not exist yet
                base = exp.tune.get("base", "weighted")
                kwargs["strategies"] = {team: base if spec == EXPERT else spec
                                        for team, spec in kwargs["strategies"].items()}
            try:
                configure(game=exp.game, players=kwargs.pop("players", exp.players[0]),
                          cards=kwargs.pop("cards", exp.cards), **kwargs)
            except UserError as exc:
                cards_line = exp.loc.v.get("cards") if isinstance(exp.loc.v, dict) else None
                if (cards_line is not None and exp.cards and exc.file
                        and Path(exc.file).resolve() == Path(exp.cards).resolve()):
                    node = cards_line   # the experiment's card file: at its 'cards:' line
                raise _relocate(exc, node, renamed) from None

        players_line = exp.loc.v.get("players") if isinstance(exp.loc.v, dict) else None
        for count in exp.players:   # a count the game does not play: at the players line
            attempt(players_line or exp.loc, players=count)
        for text, node in exp.rules:
            attempt(node, rule_overrides=(text,))
        if exp.retune and "base" in exp.tune and exp.strategies:   # at the base's own line
            attempt(exp.tune_lines["base"], strategies={next(iter(exp.strategies)): exp.tune["base"]})
        for team, (name, params) in exp.strategies.items():
            attempt(exp.loc.v["strategies"].v.get(team) or exp.loc.v["strategies"].v.get(team.lower())
                    or exp.loc, strategies={team: join_spec(name, params)})
        for change in exp.card_overrides:
            attempt(change.loc, cards=cards_for([change]))
        for axis in exp.axes:
            for value in axis.values:
                point = exp.point(exp.players[0], {a.key: (value if a is axis else a.values[0])
                                                  for a in exp.axes})
                changes = [c for c in point.card_changes if c.loc is axis.loc]
                attempt(axis.loc, rule_overrides=point.rule_overrides,
                        strategies=point.strategies, cards=cards_for(changes) if changes else exp.cards)
        for point in exp.points():
            attempt(exp.loc, players=point.players, rule_overrides=point.rule_overrides,
                    strategies=point.strategies, cards=cards_for(point.card_changes))
        if exp.retune and exp.tune.get("hold"):
            _check_hold(exp)
        if exp.autobalance is not None:
            for vary in exp.autobalance.vary:
                for value in vary.choices:
                    change = CardChange(vary.ref, vary.field, value, vary.loc)
                    attempt(vary.loc, cards=cards_for(list(exp.card_overrides) + [change]))


def _check_hold(exp: Experiment) -> None:
    """``tune: {hold: ...}``: every name is a weight of the game's strategies, reported at
    its YAML line before any point tunes (as ``simulate tune --hold`` checks it)."""
    from sim.core.game import resolve_game
    from sim.studies.held import held_weights

    arena_cls = resolve_game(exp.game).tune_arena
    if arena_cls is None:   # the retune itself says the game cannot be tuned
        return
    try:
        held_weights(exp.tune["hold"], arena_cls.weight_names())
    except UserError as exc:
        raise exp.tune_lines["hold"].error(exc.message) from None


def _refuse_settings_given_twice(exp: Experiment) -> None:
    """A card field or rule option set in two places (``card_overrides`` and a sweep axis,
    a card by id and by name, ``rules`` and a rule axis) plays only one of them while the
    report names both: refused at the second place, naming the first."""
    from sim.studies.experiments.cardfile import CardCsv

    try:
        table = CardCsv(exp.base_cards_path(), exp.game)
    except UserError:   # a bad card file is reported at the 'cards:' line by the checks below
        return
    places: list[tuple[str, frozenset, str, Located]] = []   # (kind, what, words, where)

    def card(ref: str, field: str, node: Located) -> None:
        try:
            rows = table.find_all(ref)
        except KeyError:   # an unknown card is reported at its line by the checks below
            return
        cells = frozenset((row, field) for row in rows)
        ids = ", ".join(table.card_id(row) for row in rows)
        places.append(("card", cells, f"the {field} of card {ids}", node))

    def rule(option: str, count: int | None, values: list, node: Located) -> None:
        counts = [count] if count is not None else _counts_set(values)
        scope = (f" at {', '.join(map(str, counts))} players" if None not in counts else "")
        places.append(("rule", frozenset((option, c) for c in counts),
                       f"rule option {option}{scope}", node))

    for change in exp.card_overrides:
        card(change.ref, change.field, change.loc)
    for text, node in exp.rules:
        option, _, count = text.split("=", 1)[0].partition(".")
        rule(option, int(count) if count else None, [node.plain()], node)
    for axis in exp.axes:
        if axis.kind == "card":
            card(axis.target[0], axis.target[1], axis.loc)
        elif axis.kind == "rule":
            rule(axis.target[0], axis.target[1], list(axis.values), axis.loc)
    _refuse_clash(exp, places)
    if exp.autobalance is not None:   # it starts from card_overrides: only the sweep clashes
        overrides = {id(c.loc) for c in exp.card_overrides}
        swept = [p for p in places if id(p[3]) not in overrides]
        del places[:]
        for vary in exp.autobalance.vary:
            card(vary.ref, vary.field, vary.loc)
        _refuse_clash(exp, swept + places)


def _counts_set(values: list) -> list:
    """The player counts rule values set: a mapping of counts or ranges ({3-4: 3, 5: 2})
    sets only the counts it names; any other value sets every count (None)."""
    counts: set = set()
    for value in values:
        if not isinstance(value, dict):
            return [None]
        for key in value:
            match = re.fullmatch(r"\s*(\d+)(?:\s*-\s*(\d+))?\s*", str(key))
            if match is None:   # not a count: reported at its line when the rule is checked
                return [None]
            first = int(match.group(1))
            counts.update(range(first, int(match.group(2) or first) + 1))
    return sorted(counts)


def _refuse_clash(exp: Experiment, places: list) -> None:
    """The later of two places that set the same card field or rule option, refused."""
    places = sorted(places, key=lambda p: p[3].line)
    for i, (kind, what, words, node) in enumerate(places):
        for other_kind, other, _, first in places[:i]:
            if kind == other_kind and _overlap(kind, what, other):
                raise node.error(f"{words} is also set at {_place(exp, first)}; set it in "
                                 "one place (only one of them would play)")


def _overlap(kind: str, what: frozenset, other: frozenset) -> bool:
    """Two places set a common card cell or rule option; a rule option set for every player
    count (count None) overlaps the same option set for one count."""
    if kind != "rule":
        return bool(what & other)
    return any(option == option2 and (count is None or count2 is None or count == count2)
               for option, count in what for option2, count2 in other)


def _place(exp: Experiment, node: Located) -> str:
    """Where a setting is in the file, as its key and line ("sweep.card.TE12.value, line 7")."""
    key = node.key[len(exp.name) + 1:] if node.key.startswith(exp.name + ".") else node.key
    return f"{key} (line {node.line})"
