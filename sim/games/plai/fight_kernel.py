"""The fight resolver (PLAI-F2 .. PLAI-F4) as a pure numba kernel.

It sees only the played cards, whether the defender defended, how many rival effects
each side has decided to negate (D5, made before the call) and the game's random stream.
It marks the cards that effects discard and reports the outcome in ``out[FO_*]``; the
engine moves the cards and hands out the spoils (PLAI-F5). A fight with no fight effect in
play needs none of this: the engine counts the cards itself and calls ``verdict`` (F4).
"""
import numpy as np
from numba import njit

from sim.games.plai.constants import (
    ADVERSARY, CD_ARG, CD_EFFECT, CD_STRENGTH, CD_TYPE, EFFECT_DISCARD_RIVAL, FO_ATT_NEGATES,
    FO_ATT_REAL, FO_ATT_STRENGTH, FO_DEF_NEGATES, FO_DEF_REAL, FO_DEF_STRENGTH, FO_REASON,
    FO_WINNER, SIDE_ATTACK, SIDE_DEFENSE, USE_CASE, WHY_BLUFF_CALLED, WHY_STRENGTH,
    WHY_UNDEFENDED,
)
from sim.core.rng_kernel import bounded, seed_game


@njit(cache=True, _nrt=False, forceinline=True)
def _discard_random_played(P, pr, n_played, R, rr, n, rng):
    """``discard_random_rival_played n``: n of the rival's remaining played cards (row
    ``pr`` of ``P``; removal marks in row ``rr`` of ``R``), chosen uniformly at random one
    after another (index among the remaining, in play order)."""
    for _ in range(n):
        remaining = 0
        for i in range(n_played):
            remaining += 1 - R[rr, i]
        if remaining == 0:
            return
        pick = bounded(rng, remaining)
        for i in range(n_played):
            if R[rr, i] == 0:
                if pick == 0:
                    R[rr, i] = 1
                    break
                pick -= 1


@njit(cache=True, _nrt=False, inline="always")
def _apply_effects(cards, P, pr, n_own, R, rr, Q, qr, n_rival, S, sr, rival_negates, rng):
    """Apply one side's effects (cards in row ``pr`` of ``P``, removal marks in row ``rr``
    of ``R``) in play order on the rival (``Q[qr]``, marks ``S[sr]``); the rival cancels up
    to ``rival_negates`` of them (PLAI-F2). Returns the number of negates the rival used."""
    used = 0
    for i in range(n_own):
        card = P[pr, i]
        if R[rr, i] or cards[CD_EFFECT, card] != EFFECT_DISCARD_RIVAL:
            continue  # a card discarded before it was revealed has no effect
        if used < rival_negates:
            used += 1
            continue
        _discard_random_played(Q, qr, n_rival, S, sr, cards[CD_ARG, card], rng)
    return used


@njit(cache=True, _nrt=False, forceinline=True)
def _count(cards, P, pr, n_played, R, rr, real_type):
    strength = 0
    real = 0
    for i in range(n_played):
        # Without branches: whether a card is real is data the predictor cannot learn.
        kept = R[rr, i] == 0
        card = P[pr, i]
        strength += kept * cards[CD_STRENGTH, card]
        real |= kept & (cards[CD_TYPE, card] == real_type)
    return strength, np.int64(real)


@njit(cache=True, _nrt=False, inline="always")
def resolve_fight(cards, A, ar, n_att, D, dr, n_def, defended, att_negates, def_negates, rng,
                  AR, arr, DR, drr, O, orow):
    """Resolve one fight: the attack is row ``ar`` of ``A``, the defense row ``dr`` of ``D``
    (rows of 2-D arrays, so the engine passes its piles without making views). Rows ``arr``
    of ``AR`` and ``drr`` of ``DR`` (zeroed here) come back with 1 for every played card an
    effect discarded; the outcome goes to row ``orow`` of ``O`` (``FO_*``)."""
    for i in range(n_att):
        AR[arr, i] = 0
    for i in range(n_def):
        DR[drr, i] = 0
    O[orow, FO_ATT_NEGATES] = 0
    O[orow, FO_DEF_NEGATES] = 0
    if defended and n_def > 0:
        # F2: the defense is revealed first and its effects applied, then the attack's.
        O[orow, FO_ATT_NEGATES] = _apply_effects(cards, D, dr, n_def, DR, drr, A, ar, n_att,
                                                 AR, arr, att_negates, rng)
        O[orow, FO_DEF_NEGATES] = _apply_effects(cards, A, ar, n_att, AR, arr, D, dr, n_def,
                                                 DR, drr, def_negates, rng)
    att_strength, att_real = _count(cards, A, ar, n_att, AR, arr, ADVERSARY)
    def_strength, def_real = _count(cards, D, dr, n_def, DR, drr, USE_CASE)
    O[orow, FO_ATT_STRENGTH] = att_strength
    O[orow, FO_DEF_STRENGTH] = def_strength
    O[orow, FO_ATT_REAL] = att_real
    O[orow, FO_DEF_REAL] = def_real
    winner, reason = verdict(defended and n_def > 0, att_strength, att_real, def_strength,
                             def_real)
    O[orow, FO_WINNER] = winner
    O[orow, FO_REASON] = reason
    return winner


@njit(cache=True, _nrt=False, inline="always")
def verdict(defended, att_strength, att_real, def_strength, def_real):
    """PLAI-F4 on the counted cards: (winning side, WHY_*)."""
    if not defended:
        return SIDE_ATTACK, WHY_UNDEFENDED      # an undefended attack wins
    if att_real != def_real:
        return (SIDE_ATTACK if att_real else SIDE_DEFENSE), WHY_BLUFF_CALLED
    # the higher strength wins; equal strength goes to the defender
    return (SIDE_ATTACK if att_strength > def_strength else SIDE_DEFENSE), WHY_STRENGTH


@njit(cache=True, _nrt=True, forceinline=False)
def resolve_fights_batch(cards, att, n_att, dfn, n_def, defended, att_negates, def_negates,
                         seed, att_removed, def_removed, out):
    """Resolve many independent fights (row i of each array); fight i uses the random
    stream of game i under ``seed``. For tests and for checking card lists."""
    rng = np.zeros(4, np.uint64)
    for i in range(att.shape[0]):
        seed_game(rng, seed, i)
        resolve_fight(cards, att, i, n_att[i], dfn, i, n_def[i], defended[i], att_negates[i],
                      def_negates[i], rng, att_removed, i, def_removed, i, out, i)
