"""The no-noise fast paths of the decision kernel against a plain-Python transcription of
the general rules they shortcut (PLAI-D2/D3 card picks, PLAI-F1 fight cards): with the
noise weight at 0 the kernel skips the "first copy of a card id" bookkeeping and scores
with branch-free checks; the choices (and so the hand order after each move) must be the
same. Weights are small integers so that ties, broken by hand order, are common."""
import numpy as np
import pytest

from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai.features import FEATURE_NAMES, NF
from plai_state import CARDS, State

F = {name: i for i, name in enumerate(FEATURE_NAMES)}
PICK = ("pick.strength", "pick.real", "pick.buzzword", "pick.effect", "pick.stop",
        "pick.stop_strength", "pick.stop_count")


def reference_pick(w, hand, side, mode, max_cards):
    """D2/D3 picks as written in decide_kernel.pick_cards_s's general loop, noise 0."""
    rt = c.ADVERSARY if side == c.SIDE_ATTACK else c.USE_CASE
    allow_real = mode == c.MODE_REAL
    hand = list(hand)
    picked, strength, has_real = [], 0, False
    while len(picked) < max_cards:
        count = len(picked)
        need_real = allow_real and not has_real and count == max_cards - 1
        best, best_score = -1, -1e300
        if count > 0 and (mode == c.MODE_BLUFF or has_real):
            best_score = (w[F["pick.stop"]] + w[F["pick.stop_strength"]] * strength
                          + w[F["pick.stop_count"]] * count)
        seen = set()
        for i, card in enumerate(hand):
            t, e = CARDS[c.CD_TYPE, card], CARDS[c.CD_EFFECT, card]
            playable = (t == c.BUZZWORD or (t == c.SPECIAL and e in (c.EFFECT_NONE,
                                                                     c.EFFECT_DISCARD_RIVAL))
                        or (allow_real and t == rt))
            if not playable or (need_real and t != rt) or card in seen:
                continue
            seen.add(card)   # PLAI-D2: the options are card ids, first copy in hand order
            score = (w[F["pick.strength"]] * CARDS[c.CD_STRENGTH, card]
                     + w[F["pick.real"]] * (t == rt) + w[F["pick.buzzword"]] * (t == c.BUZZWORD)
                     + w[F["pick.effect"]] * (e == c.EFFECT_DISCARD_RIVAL))
            if score > best_score:
                best, best_score = i, score
        if best < 0:
            break
        card = hand[best]
        strength += CARDS[c.CD_STRENGTH, card]
        has_real = has_real or CARDS[c.CD_TYPE, card] == rt
        hand[best] = hand[-1]     # piles_kernel.move: the last card fills the gap
        hand.pop()
        picked.append(card)
    return picked, hand


@pytest.mark.parametrize("seed", range(4))
def test_no_noise_card_picks_equal_the_general_rule(seed):
    gen = np.random.default_rng(seed)
    n_cards = CARDS.shape[1]
    for _ in range(300):
        w = np.zeros(NF)
        for name in PICK:
            w[F[name]] = gen.integers(-2, 3)
        hand = [int(x) for x in gen.integers(0, n_cards, gen.integers(0, 12))]
        side = int(gen.integers(0, 2))
        mode = int(gen.integers(1, 3))
        max_cards = int(gen.integers(1, 5))
        s = State(2, hands={0: hand})
        n = dk.pick_cards(w, s.rng, CARDS, s.piles, s.pile_n, c.P_HAND0, c.P_ATTACK, side, mode,
                          max_cards)
        picked, left = reference_pick(w, hand, side, mode, max_cards)
        assert list(s.piles[c.P_ATTACK, :n]) == picked
        assert list(s.piles[c.P_HAND0, :s.pile_n[c.P_HAND0]]) == left
        assert not s.rng.any()   # no noise: no random draws


def reference_powers(hand, side, CARDS=CARDS):
    """(has real, has bluff, real power, bluff power) as D2/D3 describe them (PLAI-F1)."""
    rt = c.ADVERSARY if side == c.SIDE_ATTACK else c.USE_CASE
    real = [CARDS[c.CD_STRENGTH, k] for k in hand if CARDS[c.CD_TYPE, k] == rt]
    bluff = [CARDS[c.CD_STRENGTH, k] for k in hand
             if CARDS[c.CD_TYPE, k] == c.BUZZWORD
             or (CARDS[c.CD_TYPE, k] == c.SPECIAL
                 and CARDS[c.CD_EFFECT, k] in (c.EFFECT_NONE, c.EFFECT_DISCARD_RIVAL))]
    top = sorted((s for s in real + bluff if s > 0), reverse=True) + [0] * 4
    real_power = 0
    if real:
        best = max(real)
        others = list(top)
        if best > 0 and best in others[:4]:
            others.remove(best)   # the real card itself is one of the top strengths
            real_power = best + sum(others[:3])
        else:
            real_power = best + sum(top[:3])
    bluff_power = sum(sorted((s for s in bluff if s > 0), reverse=True)[:4])
    return bool(real), bool(bluff), real_power, bluff_power


def test_branch_free_mode_powers_equal_the_plain_rule():
    gen = np.random.default_rng(7)
    n_cards = CARDS.shape[1]
    for _ in range(2000):
        hand = [int(x) for x in gen.integers(0, n_cards, gen.integers(0, 14))]
        side = int(gen.integers(0, 2))
        s = State(2, hands={0: hand})
        got = dk.mode_powers(CARDS, s.piles, s.pile_n, c.P_HAND0, side)
        assert tuple(int(x) for x in got[:4]) == reference_powers(hand, side), (hand, side)
        # The fifth value: the first action special in hand order (the hand size if none).
        specials = [i for i, k in enumerate(hand) if CARDS[c.CD_TYPE, k] == c.SPECIAL
                    and CARDS[c.CD_EFFECT, k] in (c.EFFECT_TARGET_DISCARDS,
                                                  c.EFFECT_STEAL_RANDOM)]
        assert int(got[4]) == (specials[0] if specials else len(hand)), (hand, side)


def test_mode_powers_beyond_the_byte_histogram():
    """mode_powers counts powers 0 .. HIST_MAX_POWER in bytes of a histogram for piles of
    up to HIST_MAX_CARDS cards; a card file with larger strengths (up to 99) or a bigger
    pile takes the insertion network. Both give the plain rule's powers."""
    from sim.games.plai.cards import derived_rows
    gen = np.random.default_rng(11)
    for trial in range(40):
        n_ids = 30
        types = gen.integers(0, 5, n_ids)
        top = (8, 12, 99)[trial % 3] if trial % 2 else c.HIST_MAX_POWER
        base = np.stack([types, gen.integers(-3, top + 1, n_ids),
                         np.where(types == c.SPECIAL, gen.integers(0, 5, n_ids), 0),
                         np.ones(n_ids, np.int64)]).astype(np.int64)
        cards = np.ascontiguousarray(np.concatenate([base, derived_rows(base)]))
        for _ in range(25):
            size = int(gen.choice([gen.integers(0, 10), gen.integers(55, 90)]))
            hand = [int(x) for x in gen.integers(0, n_ids, size)]
            side = int(gen.integers(0, 2))
            s = State(2, hands={0: hand}, size=96)
            got = dk.mode_powers(cards, s.piles, s.pile_n, c.P_HAND0, side)
            assert tuple(int(x) for x in got[:4]) == reference_powers(hand, side, cards), (
                hand, side)
