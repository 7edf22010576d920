"""sim.core.options: defaults, rules YAML (errors with line numbers), key=value and key.N=value."""
import pytest
from hypothesis import given, strategies as st

from sim.core.errors import UserError
from sim.core.options import Option, OptionSet

COLOURS = ("red", "green", "blue")

TOY = OptionSet([
    Option("size", 4, "int", "Cards in a hand.", "T-1", lo=1, hi=10),
    Option("shuffle", True, "bool", "Shuffle the discard.", "T-2"),
    Option("mode", "none", "choice", "Compensation.", "T-3", choices=("extra", "none", "no")),
    Option("order", ["red", "green", "blue"], "list", "Rank order.", "T-4",
           choices=COLOURS, permutation=True),
    Option("limit", {1: 4, 2: 3, 3: 2, 4: 2}, "int", "Unhappy limit.", "T-5", lo=1,
           per_players=True, players=(1, 2, 3, 4)),
])


def rules_file(tmp_path, text):
    path = tmp_path / "rules.yaml"
    path.write_text(text)
    return str(path)


def user_error(callable_, *args) -> str:
    with pytest.raises(UserError) as caught:
        callable_(*args)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_defaults_are_complete_and_copies():
    defaults = TOY.defaults()
    assert defaults == {"size": 4, "shuffle": True, "mode": "none",
                        "order": ["red", "green", "blue"], "limit": {1: 4, 2: 3, 3: 2, 4: 2}}
    defaults["limit"][1] = 99
    defaults["order"].reverse()
    assert TOY.defaults()["limit"][1] == 4 and TOY.defaults()["order"][0] == "red"
    assert TOY.resolve(None, ()) == TOY.defaults()


def test_rules_file_sets_values_and_per_player_mappings_change_only_named_counts(tmp_path):
    path = rules_file(tmp_path, "# my rules\nsize: 6\nshuffle: no\nmode: NO\n"
                                "order: [blue, red, green]\nlimit: {2-3: 5}\n")
    resolved = TOY.resolve(path, ())
    assert resolved == {"size": 6, "shuffle": False, "mode": "no",
                        "order": ["blue", "red", "green"], "limit": {1: 4, 2: 5, 3: 5, 4: 2}}


def test_a_single_value_sets_every_player_count(tmp_path):
    resolved = TOY.resolve(rules_file(tmp_path, "limit: 7\n"), ())
    assert resolved["limit"] == {1: 7, 2: 7, 3: 7, 4: 7}


def test_overrides_apply_after_the_file(tmp_path):
    path = rules_file(tmp_path, "size: 6\nlimit: {1: 9}\n")
    resolved = TOY.resolve(path, ["size=8", "limit.4=1"])
    assert resolved["size"] == 8
    assert resolved["limit"] == {1: 9, 2: 3, 3: 2, 4: 1}


def test_per_player_override_changes_only_that_count():
    resolved = TOY.resolve(None, ["limit.3=5"])
    assert [TOY.value_for(resolved, "limit", n) for n in (1, 2, 3, 4)] == [4, 3, 5, 2]
    assert TOY.value_for(resolved, "size", 3) == 4


def test_override_values_use_yaml_semantics():
    resolved = TOY.resolve(None, ["shuffle=off", "order=[green, blue, red]", "mode=extra"])
    assert resolved["shuffle"] is False
    assert resolved["order"] == ["green", "blue", "red"]
    assert TOY.resolve(None, ["order=Blue, Green, Red"])["order"] == ["blue", "green", "red"]


def test_unknown_key_in_file_names_the_line_and_lists_valid_keys(tmp_path):
    path = rules_file(tmp_path, "size: 5\n\n# comment\nsise: 6\n")
    message = user_error(TOY.resolve, path, ())
    assert f"{path}:4, field 'sise'" in message
    assert "size, shuffle, mode, order, limit" in message


@pytest.mark.parametrize("text,line,key,expected", [
    ("size: 5\nsize: 11\n", 2, "size", "twice"),
    ("mode: extra\nsize: 11\n", 2, "size", "an integer from 1 to 10, got 11"),
    ("size: 2\nshuffle: maybe\n", 2, "shuffle", "true or false"),
    ("size: 2.5\n", 1, "size", "an integer from 1 to 10"),
    ("size: true\n", 1, "size", "an integer"),
    ("mode: extr\n", 1, "mode", "extra, none, no"),
    ("\n\norder: [red, red, blue]\n", 3, "order", "exactly once"),
    ("order: [red, pink, blue]\n", 1, "order", "red, green, blue"),
    ("limit: {5: 1}\n", 1, "limit", "player count"),
    ("limit:\n  1: 0\n", 1, "limit", "an integer >= 1, got 0"),
    ("size:\n", 1, "size", "got nothing"),
])
def test_bad_values_in_the_file_name_line_key_and_expectation(tmp_path, text, line, key, expected):
    path = rules_file(tmp_path, text)
    message = user_error(TOY.resolve, path, ())
    assert f"{path}:{line}, field '{key}'" in message
    assert expected in message


def test_yaml_syntax_error_names_the_line(tmp_path):
    path = rules_file(tmp_path, "size: 5\nshuffle: [true\nmode: none\n")
    message = user_error(TOY.resolve, path, ())
    assert path in message and "not valid YAML" in message
    assert f"{path}:3" in message or f"{path}:4" in message


def test_file_must_be_a_mapping(tmp_path):
    path = rules_file(tmp_path, "\n- size\n- 5\n")
    assert f"{path}:2" in user_error(TOY.resolve, path, ())


def test_empty_rules_file_changes_nothing(tmp_path):
    assert TOY.resolve(rules_file(tmp_path, "# nothing\n"), ()) == TOY.defaults()


def test_missing_rules_file(tmp_path):
    path = str(tmp_path / "missing.yaml")
    assert path in user_error(TOY.resolve, path, ())


@pytest.mark.parametrize("override,field,expected", [
    ("colour=red", "colour", "valid options: size, shuffle"),
    ("size=big", "size", "an integer from 1 to 10"),
    ("size.2=3", "size.2", "same for every player count"),
    ("limit.5=3", "limit.5", "player count (1, 2, 3, 4)"),
    ("limit.x=3", "limit.x", "player count"),
    ("size", "--rule", "key=value"),
    ("size=[1", "size", "cannot parse"),
])
def test_bad_overrides_name_the_key_and_what_was_expected(override, field, expected):
    message = user_error(TOY.resolve, None, [override])
    assert f"field '{field}'" in message and expected in message


@given(st.integers(-50, 50))
def test_int_override_is_accepted_exactly_inside_its_bounds(number):
    if 1 <= number <= 10:
        assert TOY.resolve(None, [f"size={number}"])["size"] == number
    else:
        with pytest.raises(UserError):
            TOY.resolve(None, [f"size={number}"])


def test_describe_markdown_lists_every_option_with_default_and_rule_id():
    table = TOY.describe_markdown()
    lines = table.strip().splitlines()
    assert lines[0].startswith("| option | default | rule |")
    assert len(lines) == 2 + len(TOY.options)
    assert "| `limit` | 1: 4, 2: 3, 3-4: 2 | T-5 |" in table
    assert "| `order` | [red, green, blue] | T-4 |" in table
    assert "| `shuffle` | true | T-2 |" in table


def test_a_bad_default_is_a_programming_error():
    with pytest.raises(ValueError, match="size"):
        OptionSet([Option("size", 0, "int", "doc", "T-1", lo=1)])
    with pytest.raises(ValueError, match="limit"):
        OptionSet([Option("limit", {1: 2}, "int", "doc", "T-1", per_players=True, players=(1, 2))])
