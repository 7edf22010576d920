"""PLAI card file (PLAI-C1..C4) and rule options: loading, deck selection, one-line errors."""
from __future__ import annotations

from collections import Counter

import pytest

from sim.core.errors import UserError
from sim.games.plai import constants as c
from sim.games.plai.cards import DEFAULT_CARDS, load_cards
from sim.games.plai.rules import OPTIONS, rules_array

HEADER = "id,name,type,strength,numeral,copies,effect\n"


def write(tmp_path, body, header=HEADER):
    path = tmp_path / "cards.csv"
    path.write_text(header + body)
    return str(path)


def test_c4_file_says_it_is_a_reconstruction():
    first = DEFAULT_CARDS.read_text().splitlines()[0]
    assert first.startswith("#") and "RECONSTRUCTION" in first.upper()


def _counts(table, numeral):
    return Counter({(table.names[i], c.TYPE_NAMES[table.types[i]], int(table.strengths[i]),
                     c.EFFECT_NAMES[table.effects[i]], int(table.args[i])): int(table.copies[i])
                    for i in range(len(table.ids))
                    if c.NUMERAL_NAMES[table.numerals[i]] == numeral})


def test_c4_exact_list_per_numeral():
    t = load_cards()
    adv, uc, bw, sp, ev = "adversary", "use_case", "buzzword", "special", "market_event"
    assert _counts(t, "I") == Counter({
        ("Daily Standups", adv, 3, "", 0): 2, ("Scope Creep", adv, 2, "", 0): 2,
        ("Tech Debt", adv, 1, "", 0): 2, ("Vendor Lock-in", adv, 4, "", 0): 1,
        ("Internet of Things", uc, 3, "", 0): 2, ("Discrimination", uc, 2, "", 0): 2,
        ("Chatbot", uc, 1, "", 0): 2, ("Fraud Detection", uc, 4, "", 0): 1,
        ("Pandas and Scikit Learn", bw, 3, "", 0): 1, ("Blockchain", bw, 2, "", 0): 2,
        ("Synergy", bw, 1, "", 0): 3,
        ("GDPR Fine", sp, -1, "discard_random_rival_played", 1): 2,
        ("Open Source License", sp, 0, "negate", 0): 2,
        ("Layoffs", sp, 0, "target_discards", 2): 1,
        ("Acqui-hire", sp, 0, "steal_random", 1): 1,
        ("AI Winter", ev, 0, "all_discard", 1): 1, ("Hype Cycle", ev, 0, "all_draw", 1): 1,
    })
    assert _counts(t, "II") == Counter({
        ("Daily Standups", adv, 3, "", 0): 1, ("Scope Creep", adv, 2, "", 0): 1,
        ("Internet of Things", uc, 3, "", 0): 1, ("Chatbot", uc, 1, "", 0): 1,
        ("Blockchain", bw, 2, "", 0): 1, ("Synergy", bw, 1, "", 0): 1,
        ("GDPR Fine", sp, -1, "discard_random_rival_played", 1): 1,
        ("Open Source License", sp, 0, "negate", 0): 1,
        ("Funding Round", ev, 0, "all_draw", 2): 1,
        ("Market Crash", ev, 0, "rich_discard_half", 9): 1,
    })
    assert _counts(t, "III") == Counter({
        ("Vendor Lock-in", adv, 4, "", 0): 1, ("Fraud Detection", uc, 4, "", 0): 1,
        ("Pandas and Scikit Learn", bw, 3, "", 0): 1,
        ("Layoffs", sp, 0, "target_discards", 2): 1, ("Acqui-hire", sp, 0, "steal_random", 1): 1,
        ("AI Winter", ev, 0, "all_discard", 1): 1,
    })


def test_c2_deck_by_player_count():
    t = load_cards()
    # PLAI-C4's per-numeral lists hold 28 (I; the rules file's "32" does not match its own
    # list), 10 (II) and 6 (III) cards.
    sizes = {p: len(t.deck_for(p)) for p in (2, 3, 4, 5)}
    assert sizes == {2: 28, 3: 38, 4: 38, 5: 44}
    assert set(t.numerals[t.deck_for(2)]) == {1}
    assert set(t.numerals[t.deck_for(4)]) == {1, 2}


def test_c2_cards_without_numeral_are_always_in(tmp_path):
    t = load_cards(write(tmp_path, "1,A,adversary,3,,2,\n2,B,use_case,1,III,1,\n"))
    assert len(t.deck_for(2)) == 2 and len(t.deck_for(5)) == 3


def test_c1_negative_strength_and_effects_load():
    t = load_cards()
    fine = t.names.index("GDPR Fine")
    assert t.strengths[fine] == -1 and t.effects[fine] == c.EFFECT_DISCARD_RIVAL


@pytest.mark.parametrize("body, line, field, words", [
    ("1,A,monster,3,I,1,\n", 3, "type", "adversary"),
    ("1,A,adversary,x,I,1,\n", 3, "strength", "integer"),
    ("1,A,adversary,3,IV,1,\n", 3, "numeral", "III"),
    ("1,A,adversary,3,I,1,\n1,B,use_case,3,I,1,\n", 4, "id", "already used on line 3"),
    ("1,A,adversary,3,I,1,negate\n", 3, "effect", "on a special card, not an adversary"),
    ("1,A,special,0,I,1,steal_random\n", 3, "effect", "number"),
    ("1,A,special,0,I,1,teleport 2\n", 3, "effect", "unknown effect"),
    ("1,A,market_event,0,I,1,\n", 3, "effect", "needs an effect"),
    ("1,A,adversary,3,I,-1,\n", 3, "copies", "integer"),
])
def test_c1_errors_name_file_line_and_field(tmp_path, body, line, field, words):
    path = write(tmp_path, body, header="# a comment line\n" + HEADER)
    with pytest.raises(UserError) as err:
        load_cards(path)
    text = str(err.value)
    assert "\n" not in text and f"{path}:{line}" in text and f"field '{field}'" in text
    assert words in text


def test_c2_no_cards_for_a_player_count_is_a_user_error(tmp_path):
    t = load_cards(write(tmp_path, "1,A,adversary,3,III,1,\n"))
    with pytest.raises(UserError, match="no cards for 2 players"):
        t.deck_for(2)


def test_s2_a_deck_too_small_for_the_starting_hands_is_refused_before_any_game(tmp_path):
    """PLAI-S2: 4 players take 24 cards into their starting hands; a deck of 2 cards (and
    Market Events, which are not dealt) is refused, naming the file, the counts and the
    rule; 12 cards are enough at 2 players."""
    from sim.core.game import configure

    path = write(tmp_path, "1,A,adversary,3,I,1,\n2,B,use_case,1,I,1,\n"
                           "3,E,market_event,0,I,30,all_draw 1\n")
    with pytest.raises(UserError) as err:
        configure("plai", 4, cards=str(path))
    text = str(err.value)
    assert str(path) in text and "field 'copies'" in text
    assert "take 24 cards (6 each, PLAI-S2)" in text and "only 2 cards" in text
    path = write(tmp_path, "1,A,adversary,3,I,6,\n2,B,use_case,1,I,6,\n")
    configure("plai", 2, cards=str(path))
    with pytest.raises(UserError, match="take 15 cards"):
        configure("plai", 3, cards=str(path), rule_overrides=("starting_hand=5",))


def test_rule_options_defaults_match_the_rules_file():
    d = OPTIONS.defaults()
    assert (d["first_seat"], d["starting_hand"], d["reshuffle"], d["takeover_threshold"],
            d["max_turns"], d["maintainer_pool_cap"], d["maintainer_help_cards"]) == (
        "0", 6, True, 9, 400, 6, 1)
    for option in OPTIONS.options.values():
        assert option.rule_id.startswith("PLAI-") and option.doc


def test_rule_option_errors_and_player_counts(tmp_path):
    with pytest.raises(UserError, match="max_turns"):
        OPTIONS.resolve(None, ("max_turns=0",))
    rules_file = tmp_path / "r.yaml"
    rules_file.write_text("first_seat: random\ntakeover_threshold: nine\n")
    with pytest.raises(UserError) as err:
        OPTIONS.resolve(str(rules_file))
    assert ":2" in str(err.value) and "takeover_threshold" in str(err.value)
    with pytest.raises(UserError, match="2 to 5"):
        rules_array(OPTIONS.defaults(), 6)
    resolved = OPTIONS.resolve(None, ("first_seat=random",))
    assert rules_array(resolved, 3)[c.R_FIRST_SEAT] == -1
