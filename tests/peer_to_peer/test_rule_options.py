"""Peer-to-Peer rule options: defaults as the rules file states them, overrides, and the
kernel's int64 rules array (R_* indices)."""
import re

import numpy as np
import pytest

from sim.core.errors import UserError
from sim.games.peer_to_peer import constants as c
from sim.games.peer_to_peer.rules import OPTIONS, rules_array

def test_every_option_in_the_rules_file_is_declared(rules_text):
    """The rules document's "Rule options" section has one entry per declared option, and
    every option its rules name in backticks (`option` ...) is declared."""
    text = rules_text("peer-to-peer.md")
    options_section = text.split("\n## Rule options\n")[1].split("\n## ")[0]
    documented = re.findall(r"^### `(\w+)`$", options_section, flags=re.M)
    assert len(documented) == len(set(documented)) == 19
    assert set(documented) == set(OPTIONS.options)
    rules_part = text.split("\n## Rule options\n")[0]
    named = set(re.findall(r"\(option `(\w+)`", " ".join(rules_part.split())))
    assert named and named <= set(OPTIONS.options)


def test_defaults_are_the_rules_file_defaults():
    """P2P-C2, S1, S4, S5, R1, R2d, R3, R4, R5, R6, S6, R2e/R2f."""
    d = OPTIONS.defaults()
    assert d["domain_order"] == ["Service", "Technology", "Science", "Information"]
    assert d["odd_team_compensation"] == "extra_venture"
    assert (d["hand_size"], d["initial_row"], d["customer_patience"], d["row_capacity"],
            d["max_rounds"]) == (4, 2, 2, 0, 200)
    assert d["new_customers_per_round"] == {1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}
    assert d["venture_limit"] == {1: 3, 2: 3, 3: 3, 4: 3, 5: 2, 6: 2}
    assert d["unhappy_limit"] == {1: 4, 2: 3, 3: 2, 4: 2, 5: 1, 6: 1}
    assert d["deal_in_first_round"] is False and d["reshuffle_discard"] is True
    assert d["first_marker"] == "random" and d["loser_effects_spent"] is True
    # the reading options: P2P-S2, S3, R2c, E6
    assert (d["unchosen_ventures"], d["solo_spare_start_cards"], d["contest_unpaired"],
            d["patience_resets_wait"]) == ("aside", "customers", "longer_wins", False)


def test_every_option_cites_a_p2p_rule_id():
    for option in OPTIONS.options.values():
        assert re.fullmatch(r"P2P-[A-Z]\d+[a-z]?(, P2P-[A-Z]\d+[a-z]?)*", option.rule_id), option.key


@pytest.mark.parametrize("players,new_customers,venture_limit,unhappy_limit", [
    (1, 1, 3, 4), (2, 2, 3, 3), (3, 2, 3, 2), (4, 2, 3, 2), (5, 2, 2, 1), (6, 2, 2, 1),
])
def test_rules_array_defaults_per_player_count(players, new_customers, venture_limit, unhappy_limit):
    rules = rules_array(OPTIONS.defaults(), players)
    assert rules.dtype == np.int64 and rules.shape == (c.N_RULES,)
    assert rules[c.R_PLAYERS] == players
    assert (rules[c.R_NEW_CUSTOMERS], rules[c.R_VENTURE_LIMIT], rules[c.R_UNHAPPY_LIMIT]) == (
        new_customers, venture_limit, unhappy_limit)
    assert (rules[c.R_HAND_SIZE], rules[c.R_INITIAL_ROW], rules[c.R_CUSTOMER_PATIENCE],
            rules[c.R_ROW_CAPACITY], rules[c.R_MAX_ROUNDS]) == (4, 2, 2, 0, 200)
    assert (rules[c.R_DEAL_IN_FIRST_ROUND], rules[c.R_RESHUFFLE_DISCARD],
            rules[c.R_LOSER_EFFECTS_SPENT]) == (0, 1, 1)
    assert rules[c.R_ODD_COMP] == c.COMP_EXTRA_VENTURE
    assert rules[c.R_FIRST_MARKER] == c.MARKER_RANDOM
    assert (rules[c.R_UNCHOSEN_VENTURES], rules[c.R_SOLO_SPARE_START],
            rules[c.R_CONTEST_UNPAIRED], rules[c.R_PATIENCE_RESETS_WAIT]) == (
        c.UNCHOSEN_ASIDE, c.SOLO_SPARE_CUSTOMERS, c.UNPAIRED_LONGER_WINS, 0)


def test_p2p_c2_default_domain_ranks_and_any_ranks_below_all():
    ranks = rules_array(OPTIONS.defaults(), 4)[c.R_DOMAIN_RANK:c.R_DOMAIN_RANK + 5]
    assert ranks[c.SERVICE] == 3 and ranks[c.TECHNOLOGY] == 2
    assert ranks[c.SCIENCE] == 1 and ranks[c.INFORMATION] == 0 and ranks[c.ANY] == -1


def test_p2p_c2_domain_order_option_reorders_ranks():
    resolved = OPTIONS.resolve(None, ["domain_order=[science, information, service, technology]"])
    ranks = rules_array(resolved, 2)[c.R_DOMAIN_RANK:c.R_DOMAIN_RANK + 5]
    assert ranks.tolist() == [1, 0, 3, 2, -1]  # Service, Technology, Science, Information, any


@pytest.mark.parametrize("bad", ["[Service, Technology, Science]",
                                 "[Service, Technology, Science, Service]",
                                 "[Service, Technology, Science, Information, any]"])
def test_p2p_c2_domain_order_must_be_a_permutation(bad):
    with pytest.raises(UserError, match="field .domain_order.*Service, Technology, Science, Information"):
        OPTIONS.resolve(None, [f"domain_order={bad}"])


def test_p2p_r5_unhappy_limit_override_for_5_players_changes_only_5_players():
    resolved = OPTIONS.resolve(None, ["unhappy_limit.5=2"])
    defaults = OPTIONS.defaults()
    for players in range(1, 7):
        changed = rules_array(resolved, players)
        before = rules_array(defaults, players)
        if players == 5:
            assert changed[c.R_UNHAPPY_LIMIT] == 2 and before[c.R_UNHAPPY_LIMIT] == 1
            before[c.R_UNHAPPY_LIMIT] = 2
        assert np.array_equal(changed, before), players


def test_choices_and_bools_map_to_their_constants():
    resolved = OPTIONS.resolve(None, ["odd_team_compensation=NONE", "first_marker=b",
                                      "deal_in_first_round=yes", "reshuffle_discard=false",
                                      "loser_effects_spent=off", "row_capacity=5"])
    rules = rules_array(resolved, 3)
    assert rules[c.R_ODD_COMP] == c.COMP_NONE and rules[c.R_FIRST_MARKER] == c.MARKER_B
    assert (rules[c.R_DEAL_IN_FIRST_ROUND], rules[c.R_RESHUFFLE_DISCARD],
            rules[c.R_LOSER_EFFECTS_SPENT], rules[c.R_ROW_CAPACITY]) == (1, 0, 0, 5)
    extra_empty = OPTIONS.resolve(None, ["odd_team_compensation=extra_venture_empty"])
    assert rules_array(extra_empty, 3)[c.R_ODD_COMP] == c.COMP_EXTRA_VENTURE_EMPTY


def test_rules_file_with_ranges_and_its_errors_give_the_line(tmp_path):
    path = tmp_path / "house.yaml"
    path.write_text("# house rules\nventure_limit: {1-4: 4, 5-6: 3}\ncustomer_patience: 3\n")
    resolved = OPTIONS.resolve(str(path), ["customer_patience=1"])
    assert [rules_array(resolved, n)[c.R_VENTURE_LIMIT] for n in (1, 4, 5, 6)] == [4, 4, 3, 3]
    assert rules_array(resolved, 2)[c.R_CUSTOMER_PATIENCE] == 1  # override beats the file
    path.write_text("hand_size: 4\n\nmax_rounds: 40000\n")
    with pytest.raises(UserError, match=rf"{re.escape(str(path))}:3, field 'max_rounds'.*1 to 32767"):
        OPTIONS.resolve(str(path), ())
    path.write_text("hand_size: 4\ncustomer_patiance: 3\n")
    with pytest.raises(UserError, match=r":2, field 'customer_patiance'.*customer_patience"):
        OPTIONS.resolve(str(path), ())


@pytest.mark.parametrize("players", [0, 7])
def test_rules_array_rejects_unsupported_player_counts(players):
    with pytest.raises(UserError, match="1 to 6 players"):
        rules_array(OPTIONS.defaults(), players)


def test_describe_markdown_has_every_option():
    table = OPTIONS.describe_markdown()
    for key, option in OPTIONS.options.items():
        assert f"| `{key}` |" in table and option.rule_id in table
    assert "| `unhappy_limit` | 1: 4, 2: 3, 3-4: 2, 5-6: 1 | P2P-R5 |" in table
