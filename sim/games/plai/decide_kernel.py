"""Strategy decisions D1-D6 (PLAI-D) as weights . features, in numba.

``w`` is one seat's float64 weight vector (features.py names every entry and documents
the option order; the first option wins a tie). A strategy sees its own cards, hand sizes
and the rival's revealed cards only, never other hands or the deck order.
"""
import numpy as np
from numba import njit

from sim.games.plai.constants import (
    ACT_FAMILY, ACT_PASS, ACT_REGIONAL, ACT_SPECIAL, ACT_TAKEOVER, ACT_VENTURE, ADVERSARY,
    BUZZWORD, CD_EFFECT, CD_STRENGTH, CD_TYPE, EFFECT_DISCARD_RIVAL, EFFECT_NONE,
    EFFECT_STEAL_RANDOM, EFFECT_TARGET_DISCARDS, MAX_FIGHT_CARDS, MODE_BLUFF, MODE_NONE,
    MODE_REAL, P_ATTACK, P_HAND0, P_POOL, R_MAINTAINER_SPECIALS, R_PLAYERS,
    R_TAKEOVER_THRESHOLD, SIDE_ATTACK, SPECIAL, USE_CASE,
)
from sim.games.plai.features import (
    F_ACT_ATTACK, F_ACT_ATTACKERS, F_ACT_DEFENSE, F_ACT_FAMILY, F_ACT_PASS, F_ACT_SPECIAL,
    F_ACT_TAKEOVER, F_ATK_DEF_HAND, F_ATK_REAL, F_DEF_REAL,
    F_HELP, F_HELP_REAL, F_HELP_STRENGTH, F_HELP_TAKEOVER, F_NEGATE, F_NEGATE_STAKE, F_NOISE,
    F_PICK_BUZZWORD, F_PICK_EFFECT, F_PICK_REAL, F_PICK_STRENGTH, F_STOP, F_STOP_COUNT,
    F_STOP_STRENGTH, F_TARGET_HAND, F_TARGET_LEADER,
)
from sim.games.plai.piles_kernel import move
from sim.rng_kernel import uniform

NEG_INF = -1e300


@njit(cache=True)
def noise(w, rng):
    """The NOISE feature: drawn only when its weight is not zero (keeps streams stable)."""
    if w[F_NOISE] != 0.0:
        return w[F_NOISE] * uniform(rng)
    return 0.0


@njit(cache=True)
def real_type(side):
    return ADVERSARY if side == SIDE_ATTACK else USE_CASE


@njit(cache=True)
def fight_playable(cards, card, side, allow_real):
    """PLAI-F1: the side's real type (if allowed), buzzwords, and specials that act in a
    fight (an effect like GDPR Fine's, or none). Action specials and negate are not."""
    t = cards[CD_TYPE, card]
    if t == BUZZWORD:
        return True
    if t == SPECIAL:
        e = cards[CD_EFFECT, card]
        return e == EFFECT_NONE or e == EFFECT_DISCARD_RIVAL
    return allow_real and t == real_type(side)


@njit(cache=True)
def best_power(cards, piles, pile_n, pile, side, mode):
    """Highest strength the side can show in ``mode`` with up to 4 cards (0 if it cannot):
    a real play takes its strongest real card, then the 3 strongest positive others."""
    rt = real_type(side)
    best_real = -1
    best_real_i = -1
    if mode == MODE_REAL:
        for i in range(pile_n[pile]):
            card = piles[pile, i]
            if cards[CD_TYPE, card] == rt and (best_real_i < 0
                                               or cards[CD_STRENGTH, card] > best_real):
                best_real = cards[CD_STRENGTH, card]
                best_real_i = i
        if best_real_i < 0:
            return 0
    top = np.zeros(MAX_FIGHT_CARDS, np.int64)  # strongest positive extras, descending
    slots = MAX_FIGHT_CARDS - 1 if mode == MODE_REAL else MAX_FIGHT_CARDS
    for i in range(pile_n[pile]):
        card = piles[pile, i]
        if i == best_real_i or not fight_playable(cards, card, side, mode == MODE_REAL):
            continue
        s = cards[CD_STRENGTH, card]
        for k in range(slots):
            if s > top[k]:
                for j in range(slots - 1, k, -1):
                    top[j] = top[j - 1]
                top[k] = s
                break
    total = best_real if best_real_i >= 0 else 0
    for k in range(slots):
        total += top[k]
    return total


@njit(cache=True)
def holds(cards, piles, pile_n, pile, side, mode):
    """Can the side play in ``mode``? REAL needs its real type; BLUFF a non-real card."""
    for i in range(pile_n[pile]):
        card = piles[pile, i]
        if mode == MODE_REAL and cards[CD_TYPE, card] == real_type(side):
            return True
        if mode == MODE_BLUFF and fight_playable(cards, card, side, False):
            return True
    return False


@njit(cache=True)
def decide_mode(w, rng, cards, piles, pile_n, pile, side, allow_none, stake, rival_hand):
    """D2 (side attack) / D3 (side defense): none, real or bluff. Returns MODE_*."""
    base = F_ATK_REAL if side == SIDE_ATTACK else F_DEF_REAL
    best = MODE_NONE
    best_score = NEG_INF
    if allow_none:
        best_score = noise(w, rng)
    for mode in (MODE_REAL, MODE_BLUFF):
        if not holds(cards, piles, pile_n, pile, side, mode):
            continue
        score = w[base + mode - 1] + w[base + 3] * best_power(cards, piles, pile_n, pile,
                                                               side, mode)
        score += w[base + 4] * stake + noise(w, rng)
        if side == SIDE_ATTACK:
            score += w[F_ATK_DEF_HAND] * rival_hand
        if mode == MODE_BLUFF and w[base + 2] != 0.0:
            score += w[base + 2] * uniform(rng)   # the bluff coin
        if score > best_score:
            best_score = score
            best = mode
    return best


@njit(cache=True)
def _first_of_id(piles, pile, i):
    """True if slot i holds the first copy of its card id in the pile (options are ids)."""
    for j in range(i):
        if piles[pile, j] == piles[pile, i]:
            return False
    return True


@njit(cache=True)
def pick_cards(w, rng, cards, piles, pile_n, src, dst, side, mode, max_cards):
    """D2/D3 cards: move up to ``max_cards`` cards from ``src`` to ``dst`` one pick at a
    time. A real play must end with a real card among them. Returns the number moved."""
    rt = real_type(side)
    count = 0
    strength = 0
    has_real = False
    while count < max_cards:
        need_real = mode == MODE_REAL and not has_real and count == max_cards - 1
        best = -1
        best_score = NEG_INF
        if count > 0 and (mode == MODE_BLUFF or has_real):
            best_score = (w[F_STOP] + w[F_STOP_STRENGTH] * strength + w[F_STOP_COUNT] * count
                          + noise(w, rng))
        for i in range(pile_n[src]):
            card = piles[src, i]
            if not fight_playable(cards, card, side, mode == MODE_REAL):
                continue
            is_real = cards[CD_TYPE, card] == rt
            if (need_real and not is_real) or not _first_of_id(piles, src, i):
                continue
            score = (w[F_PICK_STRENGTH] * cards[CD_STRENGTH, card] + w[F_PICK_REAL] * is_real
                     + w[F_PICK_BUZZWORD] * (cards[CD_TYPE, card] == BUZZWORD)
                     + w[F_PICK_EFFECT] * (cards[CD_EFFECT, card] == EFFECT_DISCARD_RIVAL)
                     + noise(w, rng))
            if score > best_score:
                best_score = score
                best = i
        if best < 0:
            break  # stop chosen, or nothing left to play
        card = piles[src, best]
        strength += cards[CD_STRENGTH, card]
        has_real = has_real or cards[CD_TYPE, card] == rt
        move(piles, pile_n, src, best, dst)
        count += 1
    return count


@njit(cache=True)
def decide_negate(w, rng, stake):
    """D5: allow (first) or negate a rival effect that would cost ``stake`` cards."""
    allow = noise(w, rng)
    use = w[F_NEGATE] + w[F_NEGATE_STAKE] * stake + noise(w, rng)
    return use > allow


@njit(cache=True)
def pick_help(w, rng, cards, piles, pile_n, max_help, takeover):
    """D6: maintainers add up to ``max_help`` pool cards to the attacking side."""
    added = 0
    while added < max_help:
        best = -1
        best_score = noise(w, rng)   # stop
        for i in range(pile_n[P_POOL]):
            card = piles[P_POOL, i]
            if not fight_playable(cards, card, SIDE_ATTACK, True):
                continue
            if not _first_of_id(piles, P_POOL, i):
                continue
            score = (w[F_HELP] + w[F_HELP_STRENGTH] * cards[CD_STRENGTH, card]
                     + w[F_HELP_REAL] * (cards[CD_TYPE, card] == ADVERSARY)
                     + w[F_HELP_TAKEOVER] * takeover + noise(w, rng))
            if score > best_score:
                best_score = score
                best = i
        if best < 0:
            break
        move(piles, pile_n, P_POOL, best, P_ATTACK)
        added += 1
    return added


@njit(cache=True)
def is_action_special(cards, card):
    e = cards[CD_EFFECT, card]
    return cards[CD_TYPE, card] == SPECIAL and (e == EFFECT_TARGET_DISCARDS
                                                or e == EFFECT_STEAL_RANDOM)


@njit(cache=True)
def choose_action(w, rng, cards, rules, piles, pile_n, bankrupt, seat):
    """D1 with D4: returns (action, card id or -1, target seat or -1)."""
    players = rules[R_PLAYERS]
    maintainer = bankrupt[seat] >= 0
    own = P_POOL if maintainer else P_HAND0 + seat
    # Targets: every startup but me; the leader holds the most cards among them.
    most = -1
    startups = 0
    for t in range(players):
        if t != seat and bankrupt[t] < 0:
            startups += 1
            most = max(most, pile_n[P_HAND0 + t])
    best_action = -1
    best_card = -1
    best_target = -1
    best_score = NEG_INF
    if maintainer:
        best_action = ACT_PASS
        best_score = w[F_ACT_PASS] + noise(w, rng)
        first, last = ACT_FAMILY, ACT_FAMILY
    else:
        first, last = ACT_FAMILY, ACT_VENTURE
    defense = best_power(cards, piles, pile_n, own, 1, MODE_REAL) if not maintainer else 0
    for action in range(first, last + 1):
        attackers = 0
        if action == ACT_REGIONAL:
            attackers = 1 if startups > 0 else 0
        elif action == ACT_VENTURE:
            attackers = startups
        # act.family, act.regional, act.venture are consecutive, like the actions.
        score = (w[F_ACT_FAMILY + action - ACT_FAMILY] + w[F_ACT_ATTACKERS] * attackers
                 + w[F_ACT_DEFENSE] * (defense if attackers > 0 else 0) + noise(w, rng))
        if score > best_score:
            best_score, best_action, best_card, best_target = score, action, -1, -1
    if not maintainer or rules[R_MAINTAINER_SPECIALS]:
        for i in range(pile_n[own]):
            card = piles[own, i]
            if not is_action_special(cards, card) or not _first_of_id(piles, own, i):
                continue
            for t in range(players):
                if t == seat or bankrupt[t] >= 0:
                    continue
                hand = pile_n[P_HAND0 + t]
                score = (w[F_ACT_SPECIAL] + w[F_TARGET_HAND] * hand
                         + w[F_TARGET_LEADER] * (hand == most) + noise(w, rng))
                if score > best_score:
                    best_score, best_action, best_card, best_target = score, ACT_SPECIAL, card, t
    if (not maintainer and pile_n[own] >= rules[R_TAKEOVER_THRESHOLD]
            and (holds(cards, piles, pile_n, own, SIDE_ATTACK, MODE_REAL)
                 or holds(cards, piles, pile_n, own, SIDE_ATTACK, MODE_BLUFF))):
        power = best_power(cards, piles, pile_n, own, SIDE_ATTACK, MODE_REAL)
        for t in range(players):
            if t == seat or bankrupt[t] >= 0:
                continue
            hand = pile_n[P_HAND0 + t]
            score = (w[F_ACT_TAKEOVER] + w[F_ACT_ATTACK] * power + w[F_TARGET_HAND] * hand
                     + w[F_TARGET_LEADER] * (hand == most) + noise(w, rng))
            if score > best_score:
                best_score, best_action, best_card, best_target = score, ACT_TAKEOVER, -1, t
    return best_action, best_card, best_target
