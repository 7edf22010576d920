"""The fight resolver (PLAI-F2 .. PLAI-F4) as a pure numba kernel.

It sees only the played cards, whether the defender defended, how many rival effects
each side has decided to negate (D5, made before the call) and the game's random stream.
It marks the cards that effects discard and reports the outcome in ``out[FO_*]``; the
engine moves the cards and hands out the spoils (PLAI-F5).
"""
import numpy as np
from numba import njit

from sim.games.plai.constants import (
    ADVERSARY, CD_ARG, CD_EFFECT, CD_STRENGTH, CD_TYPE, EFFECT_DISCARD_RIVAL, FO_ATT_NEGATES,
    FO_ATT_REAL, FO_ATT_STRENGTH, FO_DEF_NEGATES, FO_DEF_REAL, FO_DEF_STRENGTH, FO_REASON,
    FO_WINNER, SIDE_ATTACK, SIDE_DEFENSE, USE_CASE, WHY_BLUFF_CALLED, WHY_STRENGTH,
    WHY_UNDEFENDED,
)
from sim.rng_kernel import bounded, seed_game


@njit(cache=True)
def _discard_random_played(played, n_played, removed, n, rng):
    """``discard_random_rival_played n``: n of the rival's remaining played cards, chosen
    uniformly at random one after another (index among the remaining, in play order)."""
    for _ in range(n):
        remaining = 0
        for i in range(n_played):
            remaining += 1 - removed[i]
        if remaining == 0:
            return
        pick = bounded(rng, remaining)
        for i in range(n_played):
            if removed[i] == 0:
                if pick == 0:
                    removed[i] = 1
                    break
                pick -= 1


@njit(cache=True)
def _apply_effects(cards, own, n_own, own_removed, rival, n_rival, rival_removed,
                   rival_negates, rng):
    """Apply one side's effects in play order; the rival cancels up to ``rival_negates``
    of them (PLAI-F2). Returns the number of negates the rival used."""
    used = 0
    for i in range(n_own):
        card = own[i]
        if own_removed[i] or cards[CD_EFFECT, card] != EFFECT_DISCARD_RIVAL:
            continue  # a card discarded before it was revealed has no effect
        if used < rival_negates:
            used += 1
            continue
        _discard_random_played(rival, n_rival, rival_removed, cards[CD_ARG, card], rng)
    return used


@njit(cache=True)
def _count(cards, played, n_played, removed, real_type):
    strength = 0
    real = 0
    for i in range(n_played):
        if removed[i] == 0:
            strength += cards[CD_STRENGTH, played[i]]
            if cards[CD_TYPE, played[i]] == real_type:
                real = 1
    return strength, real


@njit(cache=True)
def resolve_fight(cards, att, n_att, dfn, n_def, defended, att_negates, def_negates, rng,
                  att_removed, def_removed, out):
    """Resolve one fight. ``att_removed``/``def_removed`` (uint8, zeroed here) come back
    with 1 for every played card an effect discarded."""
    att_removed[:n_att] = 0
    def_removed[:n_def] = 0
    out[FO_ATT_NEGATES] = 0
    out[FO_DEF_NEGATES] = 0
    if defended and n_def > 0:
        # F2: the defense is revealed first and its effects applied, then the attack's.
        out[FO_ATT_NEGATES] = _apply_effects(cards, dfn, n_def, def_removed, att, n_att,
                                             att_removed, att_negates, rng)
        out[FO_DEF_NEGATES] = _apply_effects(cards, att, n_att, att_removed, dfn, n_def,
                                             def_removed, def_negates, rng)
    att_strength, att_real = _count(cards, att, n_att, att_removed, ADVERSARY)
    def_strength, def_real = _count(cards, dfn, n_def, def_removed, USE_CASE)
    out[FO_ATT_STRENGTH] = att_strength
    out[FO_DEF_STRENGTH] = def_strength
    out[FO_ATT_REAL] = att_real
    out[FO_DEF_REAL] = def_real
    if not defended or n_def == 0:
        out[FO_WINNER] = SIDE_ATTACK       # F4: an undefended attack wins
        out[FO_REASON] = WHY_UNDEFENDED
    elif att_real != def_real:
        out[FO_WINNER] = SIDE_ATTACK if att_real else SIDE_DEFENSE  # F4: the bluff is called
        out[FO_REASON] = WHY_BLUFF_CALLED
    else:
        # F4: the higher strength wins; equal strength goes to the defender.
        out[FO_WINNER] = SIDE_ATTACK if att_strength > def_strength else SIDE_DEFENSE
        out[FO_REASON] = WHY_STRENGTH
    return out[FO_WINNER]


@njit(cache=True)
def resolve_fights_batch(cards, att, n_att, dfn, n_def, defended, att_negates, def_negates,
                         seed, att_removed, def_removed, out):
    """Resolve many independent fights (row i of each array); fight i uses the random
    stream of game i under ``seed``. For tests and for checking card lists."""
    rng = np.zeros(4, np.uint64)
    for i in range(att.shape[0]):
        seed_game(rng, seed, i)
        resolve_fight(cards, att[i], n_att[i], dfn[i], n_def[i], defended[i], att_negates[i],
                      def_negates[i], rng, att_removed[i], def_removed[i], out[i])
