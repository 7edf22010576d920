"""Fuzzing the loaders with hostile text: rules files, --rule values, experiments files,
strategy files and card files built from YAML/CSV pieces that stress the limits
(aliases, nesting, tags, long numbers and values). Each either loads or raises one
UserError whose line is short; nothing else escapes, nothing is written, and the memory
a load takes stays bounded. A fixed small budget in the default run; ``-m slow`` more."""
from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repo_paths import DATA

from sim.core.errors import UserError

pytestmark = pytest.mark.usefixtures("fake_game_registered")

MAX_LOAD_BYTES = 64_000_000     # peak Python memory of one load

SCALARS = st.one_of(
    st.sampled_from(["1", "0", "-1", "4", "yes", "no", "true", "null", "~", "1e999",
                     "9" * 60, "0x1F", "1_000", ".inf", ".nan", "2024-01-01", "'quoted'",
                     '"x\\ty"', "A", "B", "none", "extra_venture", "[]", "{}", "'" + "z" * 200 + "'",
                     "!!python/object/apply:os.system ['echo x']", "!!binary aGk=", "!foo 1",
                     "!!str 3", "!!int '7'", "*a", "&a 5", "@../../etc/passwd"]),
    st.integers(-10**6, 10**6).map(str), st.text(max_size=12).map(repr))


@st.composite
def yaml_value(draw, depth=0):
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return draw(SCALARS)
    items = [draw(yaml_value(depth + 1)) for _ in range(draw(st.integers(0, 4)))]
    if draw(st.booleans()):
        return "[" + ", ".join(items) + "]"
    keys = draw(st.lists(st.sampled_from(["2", "3", "4-5", "a", "b", "x"]), max_size=len(items)))
    return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, items)) + "}"


def bomb(levels: int) -> str:
    parts = ["&l0 [x,x,x,x,x,x,x,x,x]"]
    for i in range(1, levels):
        parts.append(f"&l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    return "[" + ", ".join(parts) + "]"


SPECIALS = st.one_of(st.integers(2, 9).map(bomb), st.integers(30, 300).map(
    lambda n: "[" * n + "]" * n), st.just("&a [1, *a]"))


@st.composite
def rules_text(draw, keys):
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.one_of(st.sampled_from(keys), st.text(max_size=6)))
        value = draw(st.one_of(yaml_value(), SPECIALS))
        lines.append(f"{key}: {value}")
    if draw(st.booleans()):
        lines.insert(0, draw(st.sampled_from(["---", "%YAML 1.1\n---", "# c", "- x", "? a"])))
    return "\n".join(lines) + "\n"


def _one_short_line(exc: UserError) -> None:
    text = str(exc)
    assert "\n" not in text and len(text) <= 1000 and text.startswith("error:")


def _bounded(load) -> str:
    """``load()`` loads or raises one short UserError, within MAX_LOAD_BYTES: "loaded" or
    "refused"."""
    outcome = "loaded"
    tracemalloc.start()
    try:
        load()
    except UserError as exc:
        _one_short_line(exc)
        outcome = "refused"
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < MAX_LOAD_BYTES, f"peak {peak:,} bytes"
    return outcome


OUTCOMES = ("loaded", "refused")


def _rules_case(tmp_path_factory, options, text):
    path = tmp_path_factory.mktemp("rules") / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    outcomes = (_bounded(lambda: options.resolve(str(path))),
                _bounded(lambda: options.resolve(
                    None, [f"{list(options.options)[0]}={text.splitlines()[-1]}"]
                    if text.strip() else [])))
    assert sorted(p.name for p in path.parent.iterdir()) == ["rules.yaml"]
    return outcomes


def _options():
    from sim.games.peer_to_peer.rules import OPTIONS

    return OPTIONS


QUICK = settings(max_examples=80, deadline=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=3000, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))
KEYS = list(_options().options)


@QUICK
@given(text=rules_text(KEYS))
def test_fuzz_rules_files_and_rule_values(tmp_path_factory, text):
    assert set(_rules_case(tmp_path_factory, _options(), text)) <= set(OUTCOMES)


@pytest.mark.slow
@LONG
@given(text=rules_text(KEYS))
def test_fuzz_rules_files_and_rule_values_long(tmp_path_factory, text):
    assert set(_rules_case(tmp_path_factory, _options(), text)) <= set(OUTCOMES)


@st.composite
def experiment_text(draw):
    body = {"players": draw(st.one_of(st.just("[4]"), yaml_value(), SPECIALS)),
            "games": draw(st.one_of(st.just("100"), SCALARS)),
            "seed": draw(st.one_of(st.just("3"), SCALARS, st.just(str(2**64)))),
            "rules": draw(st.one_of(st.just("{hand_size: 5}"), yaml_value(), SPECIALS)),
            "sweep": draw(st.one_of(st.just("{rule.hand_size: [4, 5]}"), yaml_value())),
            "strategies": draw(st.one_of(st.just("{A: greedy}"), yaml_value()))}
    keys = draw(st.lists(st.sampled_from(sorted(body)), min_size=1, max_size=6, unique=True))
    lines = ["base: &base", "  seed: 7", "e:", "  <<: *base"]
    lines += [f"  {k}: {body[k]}" for k in keys]
    return "\n".join(lines) + "\n"


def _experiment_case(tmp_path_factory, text):
    from sim.studies import experiments

    path = tmp_path_factory.mktemp("exp") / "experiments.yaml"
    path.write_text(text, encoding="utf-8")

    def load():
        exp = experiments.get("e", str(path))
        exp.points()

    return _bounded(load)


@settings(QUICK, max_examples=40)
@given(text=experiment_text())
def test_fuzz_experiment_files(tmp_path_factory, text):
    assert _experiment_case(tmp_path_factory, text) in OUTCOMES


@pytest.mark.slow
@LONG
@given(text=experiment_text())
def test_fuzz_experiment_files_long(tmp_path_factory, text):
    assert _experiment_case(tmp_path_factory, text) in OUTCOMES


@st.composite
def strategy_text(draw):
    weights = draw(st.one_of(st.just("{switch: 8, early.commit.value: 1.5}"), yaml_value(),
                             SPECIALS))
    lines = ["cardsim_strategy: " + draw(st.sampled_from(["1", "2", "x", "!!python/none ''"])),
             "game: " + draw(st.sampled_from(["peer-to-peer", "plai", "[x]", "*a"])),
             "weights: " + weights]
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["tuned_on: " + bomb(6), "score: &a [*a]",
                                           "root:x:0:0:secret: 1", "players: [4]"])))
    return "\n".join(draw(st.permutations(lines))) + "\n"


def _strategy_case(tmp_path_factory, text):
    from sim.core import strategy_file

    path = tmp_path_factory.mktemp("strategy") / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return _bounded(lambda: strategy_file.read(str(path), "peer-to-peer"))


@QUICK
@given(text=strategy_text())
def test_fuzz_strategy_files(tmp_path_factory, text):
    assert _strategy_case(tmp_path_factory, text) in OUTCOMES


@pytest.mark.slow
@LONG
@given(text=strategy_text())
def test_fuzz_strategy_files_long(tmp_path_factory, text):
    assert _strategy_case(tmp_path_factory, text) in OUTCOMES


CARD_LINES = ((DATA / "fake_cards.csv").read_text().splitlines())


@st.composite
def card_text(draw):
    lines = list(CARD_LINES)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = draw(st.one_of(st.text(max_size=40), st.sampled_from(
            ["1," + "x" * 5000 + ",3", "\ufeffid,name,power", "9" * 500 + ",a,1", '"unclosed,1,2',
             "\x00,\x00,\x00", ",,,,,,,,,,,,,,,,,,,,,,,"])))
    return "\n".join(lines) + "\n"


def _cards_case(tmp_path_factory, text):
    from sim.games.peer_to_peer.cards import load_cards

    path = tmp_path_factory.mktemp("cards") / "cards.csv"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return _bounded(lambda: load_cards(str(path)))


@QUICK
@given(text=card_text())
def test_fuzz_card_files(tmp_path_factory, text):
    assert _cards_case(tmp_path_factory, text) in OUTCOMES


@pytest.mark.slow
@LONG
@given(text=card_text())
def test_fuzz_card_files_long(tmp_path_factory, text):
    assert _cards_case(tmp_path_factory, text) in OUTCOMES
