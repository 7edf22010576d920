"""PLAI fights (PLAI-F2..F4, F6): the sheet's worked examples, hand-made cases, and a
plain-Python resolver written from the rules file that must agree with the kernel."""
from __future__ import annotations

import numpy as np
import pytest

from sim.games.plai import constants as c
from sim.games.plai.fight_kernel import resolve_fights_batch
from plai_state import CARDS, RefRng, card

WIDTH = 8  # played-card slots per side in these tests (4 + maintainer help)


def fights(rows, cards=CARDS, seed=0):
    """rows: (attack names/ids, defense names/ids or None = no defense, att_negates,
    def_negates). Returns (out, att_removed, def_removed), one row per fight."""
    n = len(rows)
    att = np.full((n, WIDTH), -1, np.int16)   # int16 like the engine's piles
    dfn = np.full((n, WIDTH), -1, np.int16)
    n_att = np.zeros(n, np.int64)
    n_def = np.zeros(n, np.int64)
    defended = np.zeros(n, np.int64)
    att_neg = np.zeros(n, np.int64)
    def_neg = np.zeros(n, np.int64)
    for i, (a, d, an, dn) in enumerate(rows):
        ids = [card(x) if isinstance(x, str) else x for x in a]
        att[i, :len(ids)] = ids
        n_att[i] = len(ids)
        if d is not None:
            ids = [card(x) if isinstance(x, str) else x for x in d]
            dfn[i, :len(ids)] = ids
            n_def[i] = len(ids)
            defended[i] = 1
        att_neg[i], def_neg[i] = an, dn
    att_rm = np.zeros((n, WIDTH), np.int64)
    def_rm = np.zeros((n, WIDTH), np.int64)
    out = np.zeros((n, c.N_FIGHT_OUT), np.int64)
    resolve_fights_batch(cards, att, n_att, dfn, n_def, defended, att_neg, def_neg, seed,
                         att_rm, def_rm, out)
    return out, att_rm, def_rm


def one(attack, defense, att_negates=0, def_negates=0):
    out, att_rm, def_rm = fights([(attack, defense, att_negates, def_negates)])
    return out[0], att_rm[0], def_rm[0]


@pytest.fixture(scope="module", autouse=True)
def warm_kernel():
    one(["Daily Standups"], ["Internet of Things"])  # compile or load once per module


# ---------------------------------------------------------------- PLAI-F6, the sheet
def test_f6_example1_tie_goes_to_the_defender():
    out, _, _ = one(["Daily Standups"], ["Internet of Things"])
    assert (out[c.FO_ATT_STRENGTH], out[c.FO_DEF_STRENGTH]) == (3, 3)
    assert out[c.FO_WINNER] == c.SIDE_DEFENSE


def test_f6_example2_buzzword_adds_to_a_real_adversary():
    out, _, _ = one(["Daily Standups", "Pandas and Scikit Learn"], ["Internet of Things"])
    assert (out[c.FO_ATT_STRENGTH], out[c.FO_DEF_STRENGTH]) == (6, 3)
    assert out[c.FO_WINNER] == c.SIDE_ATTACK


def test_f6_example3_bluff_called_despite_higher_strength():
    out, _, _ = one(["Pandas and Scikit Learn"], ["Discrimination"])
    assert out[c.FO_ATT_STRENGTH] > out[c.FO_DEF_STRENGTH]  # printed 3 > 2
    assert out[c.FO_WINNER] == c.SIDE_DEFENSE
    assert out[c.FO_REASON] == c.WHY_BLUFF_CALLED


EXAMPLE4 = (["Daily Standups", "GDPR Fine"], ["Discrimination", "Pandas and Scikit Learn"], 0, 0)


def test_f6_example4_gdpr_discards_before_counting():
    # The discard is random; 64 random streams give both picks. The sheet's case is the
    # one where it hits Pandas and Scikit Learn (defense slot 1).
    out, att_rm, def_rm = fights([EXAMPLE4] * 64)
    hit_buzzword = def_rm[:, 1] == 1
    assert hit_buzzword.any() and (~hit_buzzword).any()
    assert (def_rm[:, :2].sum(axis=1) == 1).all()   # exactly one defense card, never attack's
    assert (att_rm == 0).all()
    sheet = out[hit_buzzword]
    assert (sheet[:, c.FO_ATT_STRENGTH] == 2).all()    # 3 - 1: GDPR's own -1 still counts
    assert (sheet[:, c.FO_DEF_STRENGTH] == 2).all()    # 2, not 2 + 3
    assert (sheet[:, c.FO_WINNER] == c.SIDE_DEFENSE).all()  # tie to the defender
    # The other pick leaves the defense with a buzzword alone: its bluff is called.
    other = out[~hit_buzzword]
    assert (other[:, c.FO_DEF_REAL] == 0).all()
    assert (other[:, c.FO_WINNER] == c.SIDE_ATTACK).all()


# ---------------------------------------------------------------- PLAI-F2 .. F4
def test_f4_undefended_attack_wins_even_as_a_bluff():
    out, _, _ = one(["Synergy"], None)
    assert out[c.FO_WINNER] == c.SIDE_ATTACK and out[c.FO_REASON] == c.WHY_UNDEFENDED


def test_f4_defense_bluff_loses_to_a_real_adversary():
    out, _, _ = one(["Tech Debt"], ["Pandas and Scikit Learn", "Blockchain"])
    assert out[c.FO_WINNER] == c.SIDE_ATTACK and out[c.FO_REASON] == c.WHY_BLUFF_CALLED


def test_f4_two_bluffs_compare_strength_and_tie_to_defender():
    out, _, _ = one(["Blockchain"], ["Blockchain"])
    assert out[c.FO_WINNER] == c.SIDE_DEFENSE and out[c.FO_REASON] == c.WHY_STRENGTH
    out, _, _ = one(["Pandas and Scikit Learn"], ["Synergy"])
    assert out[c.FO_WINNER] == c.SIDE_ATTACK


def test_f2_negate_cancels_the_rival_effect():
    out, att_rm, def_rm = one(["Daily Standups", "GDPR Fine"], ["Discrimination", "Synergy"],
                              def_negates=1)
    assert def_rm.sum() == 0 and out[c.FO_DEF_NEGATES] == 1
    assert (out[c.FO_ATT_STRENGTH], out[c.FO_DEF_STRENGTH]) == (2, 3)
    assert out[c.FO_WINNER] == c.SIDE_DEFENSE


def test_f2_negates_are_used_only_on_effects():
    out, _, _ = one(["Daily Standups"], ["Discrimination"], att_negates=2, def_negates=2)
    assert out[c.FO_ATT_NEGATES] == 0 and out[c.FO_DEF_NEGATES] == 0


def test_f2_defense_effect_applies_first_and_can_remove_the_attack_effect():
    # Defense GDPR hits one of two attack cards; when it hits the attack's GDPR, that card
    # is never revealed and the defense keeps both of its cards.
    rows = [(["Daily Standups", "GDPR Fine"], ["Discrimination", "GDPR Fine"], 0, 0)] * 64
    out, att_rm, def_rm = fights(rows)
    attack_fine_gone = att_rm[:, 1] == 1
    assert attack_fine_gone.any() and (~attack_fine_gone).any()
    assert (def_rm[attack_fine_gone].sum(axis=1) == 0).all()
    assert (def_rm[~attack_fine_gone].sum(axis=1) == 1).all()


def test_f3_strength_counts_only_remaining_cards():
    out, att_rm, def_rm = one(["Vendor Lock-in", "Synergy", "Synergy", "Blockchain"],
                              ["Fraud Detection", "Chatbot", "Chatbot", "Synergy"])
    assert (out[c.FO_ATT_STRENGTH], out[c.FO_DEF_STRENGTH]) == (8, 7)
    assert out[c.FO_WINNER] == c.SIDE_ATTACK


# ---------------------------------------------------------------- reference resolver
def reference_fight(cards, attack, defense, att_negates, def_negates, rng):
    """PLAI-F2..F4 read straight from the rules file. defense None = no defense.
    Returns (attack wins?, attack strength, defense strength)."""
    kind, strength, effect, arg = (cards[c.CD_TYPE], cards[c.CD_STRENGTH],
                                   cards[c.CD_EFFECT], cards[c.CD_ARG])
    att_in = [True] * len(attack)
    def_in = [True] * len(defense or [])

    def reveal(own, own_in, rival_in, rival_negates):
        negated = 0
        for i, x in enumerate(own):
            if not own_in[i] or effect[x] != c.EFFECT_DISCARD_RIVAL:
                continue            # gone before it was revealed
            if negated < rival_negates:
                negated += 1        # the rival negates this effect
                continue
            for _ in range(arg[x]):  # n of the rival's played cards, at random
                left = [j for j, alive in enumerate(rival_in) if alive]
                if not left:
                    break
                rival_in[left[rng.below(len(left))]] = False

    if defense:
        reveal(defense, def_in, att_in, att_negates)   # the defense is revealed first
        reveal(attack, att_in, def_in, def_negates)
    a_str = sum(int(strength[x]) for x, alive in zip(attack, att_in) if alive)
    d_str = sum(int(strength[x]) for x, alive in zip(defense or [], def_in) if alive)
    a_real = any(kind[x] == c.ADVERSARY for x, alive in zip(attack, att_in) if alive)
    d_real = any(kind[x] == c.USE_CASE for x, alive in zip(defense or [], def_in) if alive)
    if not defense:
        return True, a_str, d_str
    if a_real != d_real:
        return a_real, a_str, d_str
    return a_str > d_str, a_str, d_str


def random_card_table(gen):
    """A made-up card table with stronger and multi-discard effects than the default."""
    n = 24
    types = gen.choice([c.ADVERSARY, c.USE_CASE, c.BUZZWORD, c.SPECIAL], size=n)
    strength = gen.integers(-2, 6, size=n)
    effect = np.where(gen.random(n) < 0.3, c.EFFECT_DISCARD_RIVAL, c.EFFECT_NONE)
    arg = np.where(effect == c.EFFECT_DISCARD_RIVAL, gen.integers(1, 3, size=n), 0)
    return np.ascontiguousarray(np.stack([types, strength, effect, arg]).astype(np.int64))


def test_reference_resolver_agrees_with_the_kernel_on_100k_fights():
    gen = np.random.default_rng(20240609)
    n = 100_000
    cards = random_card_table(gen)
    rows = []
    for _ in range(n):
        attack = list(gen.integers(0, cards.shape[1], size=gen.integers(1, 6)))
        defense = (list(gen.integers(0, cards.shape[1], size=gen.integers(1, 5)))
                   if gen.random() < 0.85 else None)
        rows.append((attack, defense, int(gen.integers(0, 3)), int(gen.integers(0, 3))))
    seed = 99
    out, _, _ = fights(rows, cards=cards, seed=seed)
    mismatches = 0
    for i, (attack, defense, an, dn) in enumerate(rows):
        wins, a_str, d_str = reference_fight(cards, attack, defense, an, dn, RefRng(seed, i))
        kernel = (out[i, c.FO_WINNER] == c.SIDE_ATTACK, out[i, c.FO_ATT_STRENGTH],
                  out[i, c.FO_DEF_STRENGTH])
        mismatches += kernel != (wins, a_str, d_str)
    assert mismatches == 0


# ---------------------------------------------------------------- fights inside games
def _traced_fights(config, seed, games):
    """Per fight of ``games`` traced games: (attack cards, defense cards, EV_FIGHT row)."""
    from sim.games.plai.engine_kernel import trace_game
    from sim.games.plai.game import TRACE_CAPACITY

    rows = np.zeros((TRACE_CAPACITY, c.TRACE_WIDTH), dtype=np.int32)
    out = np.zeros(1, dtype=c.RESULT_DTYPE)
    fights_seen = []
    for game in range(games):
        n = trace_game(seed, game, *config._args(), rows, out)
        attack, defense = [], []
        for row in rows[:n]:
            code = row[c.TR_CODE]
            if code == c.EV_ATTACK:
                attack, defense = [], []
            elif code == c.EV_PLAY:
                (attack if row[c.TR_A] == c.SIDE_ATTACK else defense).append(int(row[c.TR_B]))
            elif code == c.EV_FIGHT:
                fights_seen.append((attack, defense, row.copy()))
    return fights_seen


@pytest.mark.parametrize("players", (2, 4, 5))
def test_game_fights_without_effects_agree_with_the_reference_resolver(players):
    """The engine decides a fight with no fight effect in play itself (without
    resolve_fight): its outcome must be PLAI-F3/F4 as the reference reads them."""
    from sim import api

    config = api.configure(game="plai", players=players,
                           strategies={"all": "weighted", "seat1": "bluffer"})
    cards = config.card_table
    plain = with_effect = 0
    for attack, defense, fight in _traced_fights(config, 5, 150):
        if any(cards[c.CD_EFFECT, x] == c.EFFECT_DISCARD_RIVAL for x in attack + defense):
            with_effect += 1
            continue
        plain += 1
        wins, a_str, d_str = reference_fight(cards, attack, defense or None, 0, 0, rng=None)
        a_real = any(cards[c.CD_TYPE, x] == c.ADVERSARY for x in attack)
        d_real = any(cards[c.CD_TYPE, x] == c.USE_CASE for x in defense)
        reason = (c.WHY_UNDEFENDED if not defense else
                  c.WHY_BLUFF_CALLED if a_real != d_real else c.WHY_STRENGTH)
        assert (fight[c.TR_A] == c.SIDE_ATTACK, fight[c.TR_B], fight[c.TR_C],
                fight[c.TR_D]) == (wins, a_str, d_str, reason)
    assert plain > 100 and with_effect > 10   # both paths of the engine were played
