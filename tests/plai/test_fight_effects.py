"""Fight effects inside real games: every fight with an effect in play
(discard_random_rival_played like GDPR Fine, and negate) that real games produce is
replayed by a plain-Python resolver written from the rules file (PLAI-F2..F5), and
worked example 4 (PLAI-F6) is played through the engine's game path (take_turn) from a
hand-made state, with every pile checked afterwards.

The replay: when a fight with effects goes to resolve_fight, a traced game writes the
negate budgets (EV_RESOLVE) and the random stream's state (two EV_RNG rows). The
reference starts its own xoshiro256++ from that state, so the random discards must be
the same cards; everything else it works out from the played cards alone.
"""
from __future__ import annotations

import numpy as np
import pytest
from repo_paths import DATA

from sim import api
from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai import engine_kernel as ek
from sim.games.plai.engine_kernel import trace_game
from plai_state import CARDS, RefRng, State, card, rules, weights

EFFECT_CARDS = str(DATA / "plai_effect_cards.csv")
MIN_FIGHTS = 100_000
BATCH = 400           # games traced into one buffer
ROWS_PER_GAME = 4000  # trace rows reserved per game of a batch (a game keeps ~1,500)
GAME_ROWS = 50_000    # one game's whole trace, the viewer's rows too (they are dropped)
VIEW_CODES = (c.EV_VIEW_PILE, c.EV_VIEW_OPTION)


def reference_resolve(cards, attack, defense, att_budget, def_budget, rng):
    """PLAI-F2..F4 read from the rules file, for a defended fight. ``attack``/``defense``:
    card ids in play order; the budgets: how many rival effects each side decided to
    negate (D5). Returns (winner side, attack strength, defense strength, reason, removed
    attack ids, removed defense ids, negates used by the attack, by the defense)."""
    kind, strength, effect, arg = (cards[c.CD_TYPE], cards[c.CD_STRENGTH],
                                   cards[c.CD_EFFECT], cards[c.CD_ARG])
    alive = {c.SIDE_ATTACK: [True] * len(attack), c.SIDE_DEFENSE: [True] * len(defense)}
    played = {c.SIDE_ATTACK: attack, c.SIDE_DEFENSE: defense}
    budget = {c.SIDE_ATTACK: att_budget, c.SIDE_DEFENSE: def_budget}
    used = {c.SIDE_ATTACK: 0, c.SIDE_DEFENSE: 0}
    # F2: the defense is revealed first and its effects applied, then the attack's.
    for side, rival in ((c.SIDE_DEFENSE, c.SIDE_ATTACK), (c.SIDE_ATTACK, c.SIDE_DEFENSE)):
        for i, x in enumerate(played[side]):
            if not alive[side][i] or effect[x] != c.EFFECT_DISCARD_RIVAL:
                continue    # discarded before it was revealed: no effect
            if used[rival] < budget[rival]:
                used[rival] += 1    # the rival negates this effect (one negate card)
                continue
            for _ in range(arg[x]):  # n of the rival's remaining played cards, at random
                left = [j for j, a in enumerate(alive[rival]) if a]
                if not left:
                    break
                alive[rival][left[rng.below(len(left))]] = False
    # F3: strength of the remaining cards; F4: real sides, the bluff called, the tie.
    total = {s: sum(int(strength[x]) for x, a in zip(played[s], alive[s]) if a)
             for s in played}
    a_real = any(kind[x] == c.ADVERSARY for x, a in zip(attack, alive[c.SIDE_ATTACK]) if a)
    d_real = any(kind[x] == c.USE_CASE for x, a in zip(defense, alive[c.SIDE_DEFENSE]) if a)
    if a_real != d_real:
        winner, reason = (c.SIDE_ATTACK if a_real else c.SIDE_DEFENSE), c.WHY_BLUFF_CALLED
    else:
        winner = c.SIDE_ATTACK if total[c.SIDE_ATTACK] > total[c.SIDE_DEFENSE] else c.SIDE_DEFENSE
        reason = c.WHY_STRENGTH
    removed = {s: sorted(x for x, a in zip(played[s], alive[s]) if not a) for s in played}
    return (winner, total[c.SIDE_ATTACK], total[c.SIDE_DEFENSE], reason,
            removed[c.SIDE_ATTACK], removed[c.SIDE_DEFENSE], used[c.SIDE_ATTACK],
            used[c.SIDE_DEFENSE])


def _state(rng_rows):
    """The four uint64 words of the random state from the two EV_RNG rows."""
    halves = [int(v) & 0xFFFFFFFF for row in rng_rows for v in row[c.TR_A:c.TR_D + 1]]
    return [halves[k] | (halves[k + 1] << 32) for k in range(0, 8, 2)]


def effect_fights(config, seed, start, games):
    """Per fight of the traced games in which a defended fight had a fight effect in play:
    (attacker, defender, attack ids, defense ids, rows of the fight), the rows from its
    EV_ATTACK to its EV_SPOILS (inclusive)."""
    flags = config.card_table[c.CD_FLAGS]
    buf = np.zeros((BATCH * ROWS_PER_GAME, c.TRACE_WIDTH), np.int32)
    game_rows = np.zeros((GAME_ROWS, c.TRACE_WIDTH), np.int32)
    out = np.zeros(1, dtype=c.RESULT_DTYPE)
    found = []
    for lo in range(start, start + games, BATCH):
        offset = 0
        for g in range(lo, min(lo + BATCH, start + games)):
            n = trace_game(seed, g, *config._args(), game_rows, out)
            assert n < GAME_ROWS
            kept = game_rows[:n][~np.isin(game_rows[:n, c.TR_CODE], VIEW_CODES)]
            assert len(kept) < ROWS_PER_GAME
            buf[offset:offset + len(kept)] = kept
            offset += len(kept)
        rows = buf[:offset]
        code = rows[:, c.TR_CODE]
        starts = np.flatnonzero(code == c.EV_ATTACK)
        ends = np.flatnonzero(code == c.EV_SPOILS)
        assert len(starts) == len(ends) and (starts < ends).all()
        for a, b in zip(starts.tolist(), ends.tolist()):
            fight = rows[a:b + 1].copy()   # the buffer is reused by the next batch
            plays = fight[fight[:, c.TR_CODE] == c.EV_PLAY]
            attack = plays[plays[:, c.TR_A] == c.SIDE_ATTACK, c.TR_B].tolist()
            defense = plays[plays[:, c.TR_A] == c.SIDE_DEFENSE, c.TR_B].tolist()
            if defense and (flags[attack + defense] & c.FL_FIGHT_EFFECT).any():
                found.append((int(fight[0, c.TR_A]), int(fight[0, c.TR_B]), attack, defense,
                              fight))
    return found


@pytest.fixture(scope="module")
def effects_config():
    # pick.effect high: the effect cards are played whenever they may be; random seats
    # decide D5 (negate) by coin, so both negating and allowing come up.
    return api.configure(game="plai", players=4, cards=EFFECT_CARDS,
                         strategies={"all": "weighted:pick.effect=6", "seat1": "random",
                                     "seat3": "bluffer:rate=0.3"})


def test_fights_with_effects_in_real_games_agree_with_the_reference(effects_config):
    cards = effects_config.card_table
    fights = effect_fights(effects_config, 21, 0, 8000)
    assert len(fights) >= MIN_FIGHTS
    kinds = {"negated": 0, "discarded": 0, "effect card lost first": 0}
    for attacker, defender, attack, defense, rows in fights:
        code = rows[:, c.TR_CODE]
        resolve = rows[code == c.EV_RESOLVE]
        # The engine must send every fight with an effect in play to resolve_fight.
        assert len(resolve) == 1, f"fight with effects not resolved: {attack} vs {defense}"
        rng = RefRng(0, 0)
        rng.s = _state(rows[code == c.EV_RNG])
        att_budget, def_budget = int(resolve[0, c.TR_A]), int(resolve[0, c.TR_B])
        (winner, a_str, d_str, reason, gone_att, gone_def, att_used,
         def_used) = reference_resolve(cards, attack, defense, att_budget, def_budget, rng)
        fight = rows[code == c.EV_FIGHT][0]
        assert (fight[c.TR_A], fight[c.TR_B], fight[c.TR_C], fight[c.TR_D]) == (
            winner, a_str, d_str, reason), (attack, defense, att_budget, def_budget)
        discards = rows[code == c.EV_EFFECT_DISCARD]
        assert sorted(discards[discards[:, c.TR_A] == c.SIDE_ATTACK, c.TR_B]) == gone_att
        assert sorted(discards[discards[:, c.TR_A] == c.SIDE_DEFENSE, c.TR_B]) == gone_def
        # PLAI-F2: one negate card spent per effect cancelled, by the side that cancelled.
        negates = rows[code == c.EV_NEGATE]
        assert (negates[:, c.TR_A] == defender).sum() == def_used
        assert (negates[:, c.TR_A] != defender).sum() == att_used
        assert (cards[c.CD_EFFECT, negates[:, c.TR_B]] == c.EFFECT_NEGATE).all()
        # PLAI-F5: the winner takes the spoils.
        spoils = rows[-1]
        assert spoils[c.TR_A] == (attacker if winner == c.SIDE_ATTACK else defender)
        kinds["negated"] += att_used + def_used > 0
        kinds["discarded"] += bool(gone_att or gone_def)
        kinds["effect card lost first"] += any(
            cards[c.CD_EFFECT, x] == c.EFFECT_DISCARD_RIVAL for x in gone_att)
    # every path of F2 was played many times
    assert min(kinds.values()) > 1000, kinds


# ---------------------------------------------------------------- PLAI-F6 example 4
EXAMPLE4_W = {0: {"act.regional": 100.0, "defend.real": 100.0},
              1: {"attack.real": 100.0, "pick.effect": 10.0}}


def _example4(seed):
    """Seat 0 takes a regional pitch (Synergy and Blockchain on top of the deck); seat 1
    attacks with Daily Standups and GDPR Fine; seat 0 defends with Discrimination and
    Pandas and Scikit Learn (the sheet's cards). Tech Debt and Chatbot cannot be played
    on those sides, so they stay in hand."""
    s = State(2, hands={0: ["Discrimination", "Pandas and Scikit Learn", "Tech Debt"],
                        1: ["Daily Standups", "GDPR Fine", "Chatbot"]},
              deck=["Scope Creep", "Synergy", "Blockchain"], trace_rows=200).seed(seed)
    w = weights(2, per_seat=EXAMPLE4_W)
    ek.take_turn(0, w, dk.pick_table(w, CARDS), s.rng, CARDS, rules(2), s.piles, s.pile_n,
                 s.bankrupt, s.st, s.trace, s.scratch, s.startups())
    left = ek.end_of_turn(rules(2), s.piles, s.pile_n, s.bankrupt, s.st, s.trace, 9,
                          s.startups())
    return s, left


def test_f6_example4_played_through_the_game_path():
    sheet = other = 0
    for seed in range(40):
        s, left = _example4(seed)
        assert s.st[c.S_FUND_REGIONAL] == 1 and s.st[c.S_REGIONAL_ATTACKED] == 1
        assert s.st[c.S_ERROR] == 0 and left == 2 and s.total() == 9
        # F5: all played cards end in the discard pile (Pandas or Discrimination already
        # there from the effect); nobody discards the unplayed hand.
        assert s.names(c.P_DISCARD) == ["Daily Standups", "Discrimination", "GDPR Fine",
                                        "Pandas and Scikit Learn"]
        for pile in (c.P_FUNDING, c.P_ATTACK, c.P_DEFENSE, c.P_POOL, c.P_EVENTS):
            assert s.pile_n[pile] == 0
        assert s.names(c.P_DECK) == ["Scope Creep"]
        fight = s.trace[s.trace[:, c.TR_CODE] == c.EV_FIGHT][0]
        hit = s.trace[s.trace[:, c.TR_CODE] == c.EV_EFFECT_DISCARD]
        assert len(hit) == 1 and hit[0, c.TR_A] == c.SIDE_DEFENSE
        if hit[0, c.TR_B] == card("Pandas and Scikit Learn"):
            # The sheet's case: attack 3 - 1 = 2, defense 2 (not 5): the tie goes to the
            # defender, who keeps the pitch's two cards.
            sheet += 1
            assert list(fight[c.TR_A:]) == [c.SIDE_DEFENSE, 2, 2, c.WHY_STRENGTH]
            assert s.hand(0) == ["Blockchain", "Synergy", "Tech Debt"]
            assert s.hand(1) == ["Chatbot"]
        else:
            # GDPR Fine took Discrimination: the defense is a buzzword alone, its bluff is
            # called (F4) and the attacker takes the pitch.
            other += 1
            assert hit[0, c.TR_B] == card("Discrimination")
            assert list(fight[c.TR_A:]) == [c.SIDE_ATTACK, 2, 3, c.WHY_BLUFF_CALLED]
            assert s.hand(0) == ["Tech Debt"]
            assert s.hand(1) == ["Blockchain", "Chatbot", "Synergy"]
    assert sheet > 5 and other > 5
