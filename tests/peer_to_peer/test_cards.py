"""Peer-to-Peer card files: the default reconstruction against the rules text (P2P-C),
card-file errors naming file/line/field (P2P-C1, P2P-E), and setup checks (P2P-S1..S5)."""
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from sim.core.errors import UserError
from sim.games.peer_to_peer import constants as c
from sim.games.peer_to_peer.cards import default_cards_path, load_cards, validate_for_players
from sim.games.peer_to_peer.rules import OPTIONS

DOMAIN_WORD = r"(Service|Technology|Science|Information)"


@pytest.fixture(scope="module")
def deck():
    return load_cards()


@pytest.fixture(scope="module")
def reconstruction_section(rules_text) -> str:
    """The rules document's section P2P-C3, "The default card file (a reconstruction)",
    up to the next heading of its level or above (its lines as written)."""
    text = rules_text("peer-to-peer.md")
    section = text.split("\n### P2P-C3 The default card file (a reconstruction)\n")[1]
    return re.split(r"\n#{1,3} ", section)[0]


def table_rows(section: str) -> list[list[str]]:
    """The cells of every Markdown table row of ``section`` (header and rule rows too)."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in section.splitlines() if line.startswith("|")]


def effect_text(deck, i) -> str:
    """A card's effect written back in the card-file vocabulary."""
    name = c.EFFECT_NAMES[deck.effect[i]]
    arg = int(deck.effect_arg[i])
    if deck.effect[i] in (c.EFFECT_SHIFT, c.EFFECT_BOOST, c.EFFECT_EXTRA_DRAW):
        return f"{name} {arg}"
    if deck.effect[i] == c.EFFECT_DEVELOP:
        return f"{name} {c.DEVELOP_TARGETS[arg]}"
    if deck.effect[i] == c.EFFECT_DUAL_DOMAIN:
        return f"{name} {c.DOMAIN_NAMES[arg].lower()}"
    return name


# -- the default deck (P2P-C3 reconstruction) ------------------------------------------------

def test_default_deck_has_54_unique_cards_and_its_hash(deck):
    assert deck.n == 54 == len(set(deck.ids)) == len(deck.names)
    assert deck.sha256 == hashlib.sha256(default_cards_path().read_bytes()).hexdigest()
    assert deck.domain.dtype == np.int8 and deck.value.dtype == np.int16
    assert {a.dtype for a in (deck.kind, deck.start, deck.effect, deck.effect_arg)} == {np.dtype(np.int8)}


def test_p2p_c3_default_file_says_it_is_a_reconstruction_and_how_to_use_your_own():
    first_line = default_cards_path().read_text().splitlines()[0]
    assert first_line.startswith("#") and "reconstruction" in first_line
    assert "simulate cards > my.csv" in first_line and "--cards my.csv" in first_line


def test_p2p_c3_52_domain_cards_with_values_1_to_13_and_two_open_protocols(deck):
    for domain in range(4):
        values = sorted(deck.value[deck.domain == domain].tolist())
        assert values == list(range(1, 14))
    open_protocols = np.flatnonzero(deck.domain == c.ANY)
    assert sorted(deck.names[i] for i in open_protocols) == ["Open Protocol A", "Open Protocol B"]
    # value 5 (P2P-C3), so starting hands can reach the customers worth 11-13
    assert all(deck.value[i] == 5 and deck.kind[i] == c.GROUP for i in open_protocols)
    for i in range(deck.n):  # names read "Service 10" like the rules text
        if deck.domain[i] != c.ANY:
            assert deck.names[i] == f"{c.DOMAIN_NAMES[deck.domain[i]]} {deck.value[i]}"


def test_p2p_c3_venture_cards_match_the_rules_text(deck, reconstruction_section):
    found = re.search(r"Venture cards: the cards valued (\d+) to (\d+) in each of the four "
                      r"domains are the (\d+) venture cards", " ".join(reconstruction_section.split()))
    low, high, count = map(int, found.groups())
    expected = {f"{d} {v}" for d in c.DOMAIN_NAMES[:4] for v in range(low, high + 1)}
    ventures = {deck.names[i] for i in np.flatnonzero(deck.kind == c.VENTURE)}
    assert ventures == expected and len(ventures) == count == 16


def test_p2p_s3_starting_cards_per_team_match_the_rules_text(deck, reconstruction_section):
    listed = {row[0]: row[1] for row in table_rows(reconstruction_section)
              if row[0] in ("A", "B")}
    assert set(listed) == {"A", "B"}
    for team, label in ((c.TEAM_A, "A"), (c.TEAM_B, "B")):
        expected = {name.strip() for name in listed[label].split(",")}
        actual = {deck.names[i] for i in np.flatnonzero(deck.start == team)}
        assert actual == expected and len(actual) == 5
        # one card of every domain valued 1-4, and an Open Protocol (domain any) worth 5
        team_cards = np.flatnonzero(deck.start == team)
        assert sorted(deck.value[team_cards].tolist()) == [1, 2, 3, 4, 5]
        assert sorted(deck.domain[team_cards].tolist()) == [0, 1, 2, 3, 4]


def test_p2p_e_effects_match_the_rules_text(deck, reconstruction_section):
    expected = {}
    for row in table_rows(reconstruction_section):
        named = re.fullmatch(rf"{DOMAIN_WORD} ([\d, ]+)", row[0])
        effect = re.fullmatch(r"`([^`]+)`", row[-1])
        if named and effect:
            for value in named.group(2).split(","):
                expected[f"{named.group(1)} {value.strip()}"] = effect.group(1)
    assert len(expected) == 20
    actual = {deck.names[i]: effect_text(deck, i) for i in range(deck.n) if deck.effect[i]}
    assert actual == expected


def test_default_deck_supports_every_player_count(deck):
    """P2P-S1/S2/S3: a UserError here would mean the default deck cannot be set up."""
    for players in range(1, 7):
        assert validate_for_players(deck, players, OPTIONS.defaults()) is None


# -- bad card files: one UserError naming file, line and field ---------------------------

def mutated(tmp_path, old: str, new: str) -> str:
    """The default deck with one exact line (or header) replaced."""
    text = default_cards_path().read_text()
    assert text.count(old) == 1, old
    path = tmp_path / "my.csv"
    path.write_text(text.replace(old, new))
    return str(path)


def line_of(path: str, fragment: str) -> int:
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if fragment in line:
            return number
    raise AssertionError(fragment)


BAD_ROWS = [
    # (original line, replacement, field, words the message must contain)
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Servise,5,group,,", "domain", "Servise"),
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Service,5,hand,,", "kind", "venture"),
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Service,five,group,,", "value", "integer"),
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Service,100,group,,", "value", "0 to 99"),
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Service,5,group,C,", "start", "A, B"),
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Service,5,group,,teleport", "effect",
     "unknown effect 'teleport'"),
    ("TE10,Technology 10,Technology,10,venture,,shift 1",
     "TE10,Technology 10,Technology,10,venture,,shift 0", "effect", "1 to 99"),
    ("TE10,Technology 10,Technology,10,venture,,shift 1",
     "TE10,Technology 10,Technology,10,venture,,shift", "effect", "exactly one argument"),
    ("TE7,Technology 7,Technology,7,group,,boost 2",
     "TE7,Technology 7,Technology,7,group,,boost two", "effect", "'two'"),
    ("IN13,Information 13,Information,13,venture,,extra_draw 2",
     "IN13,Information 13,Information,13,venture,,extra_draw -1", "effect", "extra_draw"),
    ("SC12,Science 12,Science,12,venture,,develop deck",
     "SC12,Science 12,Science,12,venture,,develop pile", "effect", "deck, hand, discard"),
    ("SC8,Science 8,Science,8,group,,dual_domain technology",
     "SC8,Science 8,Science,8,group,,dual_domain any", "effect", "dual_domain"),
    ("SV12,Service 12,Service,12,venture,,patience",
     "SV12,Service 12,Service,12,venture,,patience 2", "effect", "no argument"),
    # a venture effect on a group card would never work (P2P-E)
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Service,5,group,,tiebreak", "effect",
     "'tiebreak' is a venture effect"),
    ("SV13,Service 13,Service,13,venture,,tiebreak", "SV13,Service 13,Service,13,group,,tiebreak",
     "effect", "is a group card"),
    ("SV5,Service 5,Service,5,group,,", "SV4,Service 5,Service,5,group,,", "id", "duplicate"),
    ("SV5,Service 5,Service,5,group,,", "sv4,Service 5,Service,5,group,,", "id", "duplicate"),
    ("SV5,Service 5,Service,5,group,,", "SV 5,Service 5,Service,5,group,,", "id", "letters"),
    ("SV5,Service 5,Service,5,group,,", ",Service 5,Service,5,group,,", "id", "empty"),
    ("SV5,Service 5,Service,5,group,,", "SV5,Service, 5,Service,5,group,,", "effect", "cells"),
    ("SV5,Service 5,Service,5,group,,", "SV5,Service 5,Service,5,group", "start", "cells"),
]


@pytest.mark.parametrize("old,new,field,words", BAD_ROWS)
def test_p2p_c1_bad_card_rows_name_file_line_and_field(tmp_path, old, new, field, words):
    path = mutated(tmp_path, old + "\n", new + "\n")
    with pytest.raises(UserError) as caught:
        load_cards(path)
    message = str(caught.value)
    assert "\n" not in message
    assert f"{path}:{line_of(path, new)}, field '{field}'" in message
    assert words in message


def test_p2p_e_unknown_effect_names_the_card(tmp_path):
    path = mutated(tmp_path, "SV13,Service 13,Service,13,venture,,tiebreak",
                   "SV13,Service 13,Service,13,venture,,tie_break")
    with pytest.raises(UserError, match=r"card 'SV13': unknown effect 'tie_break'"):
        load_cards(path)


@pytest.mark.parametrize("header,field", [
    ("id,name,domain,value,kind,effect", "start"),
    ("id,name,domain,kind,start,effect", "value"),
    ("id,name,domain,value,kind,start,effect,cost", "cost"),
])
def test_p2p_c1_header_problems_name_the_header_line_and_the_column(tmp_path, header, field):
    path = mutated(tmp_path, "id,name,domain,value,kind,start,effect\n", header + "\n")
    line = default_cards_path().read_text().splitlines().index(
        "id,name,domain,value,kind,start,effect") + 1   # after the comment lines
    assert line == 3
    with pytest.raises(UserError, match=rf"{re.escape(path)}:{line}, field '{field}'"):
        load_cards(path)


def test_effect_column_may_be_left_out_and_values_are_case_insensitive(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("ID,Name,Domain,Value,Kind,Start\nX1,x,SERVICE,3,Venture,a\n")
    cards = load_cards(path)
    assert (cards.domain[0], cards.value[0], cards.kind[0], cards.start[0], cards.effect[0]) == (
        c.SERVICE, 3, c.VENTURE, c.TEAM_A, c.EFFECT_NONE)


def test_missing_card_file_names_it(tmp_path):
    with pytest.raises(UserError, match="file not found"):
        load_cards(tmp_path / "nope.csv")


def test_header_without_cards(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("# nothing yet\nid,name,domain,value,kind,start,effect\n")
    with pytest.raises(UserError, match="no cards"):
        load_cards(path)


# -- setup checks per player count (P2P-S1, S2, S3) -----------------------------------------

def deck_with(tmp_path, replacements: dict[str, str]):
    text = default_cards_path().read_text()
    for old, new in replacements.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "variant.csv"
    path.write_text(text)
    return load_cards(path)


@pytest.mark.parametrize("players", [1, 4])
def test_p2p_s3_team_b_needs_5_start_cards_even_solo(tmp_path, players):
    cards = deck_with(tmp_path, {"OPB,Open Protocol B,any,5,group,B,": "OPB,Open Protocol B,any,5,group,,"})
    with pytest.raises(UserError) as caught:
        validate_for_players(cards, players, OPTIONS.defaults())
    message = str(caught.value)
    assert f"{cards.path}, field 'start'" in message and "team B has 4" in message


def test_p2p_s3_six_start_cards_for_a_team_is_an_error(tmp_path):
    cards = deck_with(tmp_path, {"SV2,Service 2,Service,2,group,,": "SV2,Service 2,Service,2,group,A,"})
    with pytest.raises(UserError, match="team A has 6"):
        validate_for_players(cards, 2, OPTIONS.defaults())


def test_p2p_s1_s2_venture_count_depends_on_seats_dealt(tmp_path):
    # 11 ventures: enough for 5 seats (10 revealed), not for 6 (12). (A group card cannot
    # keep a venture effect, P2P-E.)
    cards = deck_with(tmp_path, {"IN13,Information 13,Information,13,venture,,extra_draw 2":
                                 "IN13,Information 13,Information,13,group,,",
                                 "IN12,Information 12,Information,12,venture,,extra_draw 1":
                                 "IN12,Information 12,Information,12,group,,",
                                 "IN11,Information 11,Information,11,venture,,extra_draw 1":
                                 "IN11,Information 11,Information,11,group,,",
                                 "IN10,Information 10,Information,10,venture,,extra_draw 1":
                                 "IN10,Information 10,Information,10,group,,",
                                 "SV13,Service 13,Service,13,venture,,tiebreak":
                                 "SV13,Service 13,Service,13,group,,"})
    assert int(np.sum(cards.kind == c.VENTURE)) == 11
    defaults = OPTIONS.defaults()
    validate_for_players(cards, 4, defaults)
    with pytest.raises(UserError) as caught:
        validate_for_players(cards, 6, defaults)
    assert f"{cards.path}, field 'kind'" in str(caught.value) and "only 11" in str(caught.value)
    # 5 players: the smaller team's extra seat is dealt a venture only with extra_venture.
    with pytest.raises(UserError, match="6 seats"):
        validate_for_players(cards, 5, defaults)
    for reading in ("extra_venture_empty", "none"):
        validate_for_players(cards, 5, OPTIONS.resolve(None, [f"odd_team_compensation={reading}"]))


def test_p2p_s2_start_cards_do_not_count_as_ventures(tmp_path):
    # Two S marks move onto ventures and three ventures become group cards (without their
    # venture effects, P2P-E).
    cards = deck_with(tmp_path, {"SV1,Service 1,Service,1,group,A,": "SV1,Service 1,Service,1,group,,",
                                 "SV10,Service 10,Service,10,venture,,wild_domain":
                                 "SV10,Service 10,Service,10,venture,A,wild_domain",
                                 "IN1,Information 1,Information,1,group,B,":
                                 "IN1,Information 1,Information,1,group,,",
                                 "SV11,Service 11,Service,11,venture,,wild_domain":
                                 "SV11,Service 11,Service,11,venture,B,wild_domain",
                                 "SV12,Service 12,Service,12,venture,,patience":
                                 "SV12,Service 12,Service,12,group,,",
                                 "SV13,Service 13,Service,13,venture,,tiebreak":
                                 "SV13,Service 13,Service,13,group,,",
                                 "TE13,Technology 13,Technology,13,venture,,shift 2":
                                 "TE13,Technology 13,Technology,13,group,,"})
    assert int(np.sum(cards.kind == c.VENTURE)) == 13  # but only 11 without an S mark
    with pytest.raises(UserError, match="only 11 venture cards without an S mark"):
        validate_for_players(cards, 6, OPTIONS.defaults())
