"""Strategy decisions D1-D6 (PLAI-D) as weights . features, in numba.

The engine passes the whole weight matrix ``W`` (float64[players, NF]) and the deciding
seat's row ``ws``, so no row view is made per decision (features.py names every entry and
documents the option order; the first option wins a tie). A strategy sees its own cards,
hand sizes and the rival's revealed cards only, never other hands or the deck order.
``decide_mode``, ``pick_cards`` and ``choose_action`` take one seat's vector ``w``: they
are the single-seat entry points the tests call.

Speed notes: the hot path allocates nothing and makes no array views (numba reference
counts every view with atomic operations); "first copy of a card id" is a bitmask for ids
below 64 (a rescan of the pile above that); one pass over a hand gives everything
``decide_mode`` needs (``mode_powers``).
"""
import numpy as np
from numba import njit

from sim.games.plai.constants import (
    ACT_FAMILY, ACT_PASS, ACT_REGIONAL, ACT_SPECIAL, ACT_TAKEOVER, ACT_VENTURE, ADVERSARY,
    BUZZWORD, CD_EFFECT, CD_FLAGS, CD_HIST_ATT, CD_HIST_BLUFF, CD_HIST_DEF, CD_POWER_ATT,
    CD_POWER_BLUFF, CD_POWER_DEF, CD_REAL_ATT, CD_REAL_DEF, CD_STRENGTH, CD_TYPE,
    EFFECT_DISCARD_RIVAL, EFFECT_NONE, EFFECT_STEAL_RANDOM, EFFECT_TARGET_DISCARDS, FL_ACTION,
    FL_ADVERSARY, FL_BIG_POWER, FL_BLUFF, FL_BUZZWORD, FL_FIGHT_EFFECT,
    FL_USE_CASE, MODE_BLUFF, MODE_NONE, MODE_REAL, NOT_REAL, P_ATTACK,
    P_HAND0, P_POOL, R_MAINTAINER_ATTACK, R_MAINTAINER_SPECIALS, R_MAX_TURNS, R_PLAYERS,
    R_REGIONAL_NEXT_PLAYER, R_TAKEOVER_THRESHOLD, SIDE_ATTACK,
    SIDE_DEFENSE, SPECIAL, USE_CASE,
)
from sim.games.plai.features import (
    F_ACT_ATTACK, F_ACT_ATTACKERS, F_ACT_DEFENSE, F_ACT_FAMILY, F_ACT_PASS, F_ACT_SPECIAL,
    F_ACT_TAKEOVER, F_ACT_THRESHOLD_GAP, F_ATK_DEF_HAND, F_ATK_REAL, F_DEF_REAL,
    F_HELP, F_HELP_REAL, F_HELP_STRENGTH, F_HELP_TAKEOVER, F_KEEP_ADVERSARY, F_KEEP_SPECIAL,
    F_KEEP_STRENGTH, F_NEGATE, F_NEGATE_STAKE, F_NOISE,
    F_PICK_BUZZWORD, F_PICK_EFFECT, F_PICK_REAL, F_PICK_STRENGTH, F_STOP, F_STOP_COUNT,
    F_STOP_STRENGTH, F_TAKEOVER_EDGE, F_TAKEOVER_LAST_RIVAL, F_TAKEOVER_TURNS_LEFT,
    F_TARGET_HAND, F_TARGET_LEADER,
)
from sim.core.rng_kernel import uniform
from sim.core.search_kernel import add_option
from sim.games.plai.piles_kernel import move, seat_after

NEG_INF = -1e300
MASK_IDS = 64   # card ids below this are tracked in a uint64 bitmask
NOT_A_TARGET = 1 << 40   # subtracted from a hand size that is not a target's
# pick_table key rows: per (seat, side) one row per case of what a pick may take (PLAI-F1).
PICK_BLUFF = 0   # non-real fight cards only (a bluff)
PICK_ANY = 1     # real or non-real fight cards (a real play)
PICK_REAL = 2    # real cards only (the last card of a real play without one yet)
N_PICK_CASES = 3
# A pick key: score rank << 32 | (PICK_FIELD - hand index) << 16 | card id. Hand indices
# and card ids stay below 2**16 (decks <= 30000 cards, ids are rows of the card file).
PICK_FIELD = (1 << 16) - 1
PICK_SLOT_SHIFT = 16
PICK_RANK_SHIFT = 32
PICK_NONE = -(1 << 60)   # a card the case may not pick: below every key, with any slot added
# SCALAR_LOOP: a scan of a hand that breaks on a negative card id (there is none) has two
# exits, so LLVM does not vectorize it. The vector version (AVX-512 gathers, taken from 8
# cards on) was slower than the scalar loop at every hand size, and its entry checks cost
# every call: mode_powers on 0-1 cards 13.0 ns vectorized, 6.5 ns scalar; 7-8 cards 21.6
# and 17.8 ns; 11-12 cards 27.9 and 23.7 ns (micro-benchmark).
# mode_powers' byte histograms (cards.derived_rows: CD_HIST_*): a byte per power 0 .. 7.
HIST_MAX_CARDS = 63          # byte counts stay below 64 (bit 6 is the "4 or more" test)
HIST_ONES = 0x0101010101010101
HIST_FOURS = 4 * HIST_ONES
HIST_BIT6 = 0x40 * HIST_ONES


@njit(cache=True, _nrt=False, forceinline=True)
def noise(W, ws, rng):
    """The NOISE feature: drawn only when its weight is not zero (keeps streams stable)."""
    x = W[ws, F_NOISE]
    if x != 0.0:
        return x * uniform(rng)
    return 0.0


@njit(cache=True, _nrt=False, inline="always")
def listing_noise(W, ws, rng, options):
    """The NOISE feature, or 0.0 while a search player lists the options (``options`` not
    None: sim.core.search_kernel.Options): it draws nothing."""
    if options is not None:
        return 0.0
    return noise(W, ws, rng)


@njit(cache=True, _nrt=False, inline="always")
def real_type(side):
    return ADVERSARY if side == SIDE_ATTACK else USE_CASE


@njit(cache=True, _nrt=False, forceinline=True)
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


@njit(cache=True, _nrt=False, forceinline=True)
def first_of_id(piles, pile, i, seen):
    """Is slot i the first copy of its card id in the pile (options are ids)? Slots must be
    asked in increasing order within one scan; ``seen`` carries the bitmask between calls.
    Returns (first, seen)."""
    card = piles[pile, i]
    if card < MASK_IDS:
        bit = np.uint64(1) << np.uint64(card)
        if seen & bit:
            return False, seen
        return True, seen | bit
    for j in range(i):
        if piles[pile, j] == card:
            return False, seen
    return True, seen


@njit(cache=True, _nrt=False, inline="always")
def _top4_from_hist(hist):
    """(sum of the 4 largest, the 4th largest) of the powers counted in ``hist``, byte v
    holding how many cards have power v (at most HIST_MAX_CARDS), with zeros added when
    fewer than 4 cards count: what the insertion network of ``_top4_network`` keeps.

    Branch-free on the bytes: the sum of the top 4 is the sum over v >= 1 of
    min(cards with power >= v, 4), and the 4th largest is how many v >= 1 have 4 or more."""
    at_least = hist + (hist >> 8)       # byte v: cards with power >= v (suffix sums)
    at_least += at_least >> 16
    at_least += at_least >> 32
    # 1 in the bytes with 4 or more: bit 6 of (count + 64 - 4), counts being below 64
    four = (((at_least | HIST_BIT6) - HIST_FOURS) & HIST_BIT6) >> 6
    mask = four * 0xFF
    capped = (at_least & ~mask) | (HIST_FOURS & mask)
    # A byte sum is the top byte of a product by 0x0101...01 (the sums stay below 128).
    top = ((capped & ~0xFF) * HIST_ONES) >> 56
    fourth = ((four & ~0xFF) * HIST_ONES) >> 56
    return top, fourth


@njit(cache=True, _nrt=False, forceinline=True)
def _top4_network(cards, piles, pile_n, pile, side):
    """``mode_powers``' top-4 values without the byte histogram, for card files with
    powers above HIST_MAX_POWER or piles above HIST_MAX_CARDS cards: (sum of the 4 largest
    fight powers, the 4th largest, sum of the 4 largest bluff powers). The top four are
    kept by a max/min insertion network, where a card that does not count enters as 0
    and changes nothing (every kept value is >= 0)."""
    power_row = CD_POWER_ATT if side == SIDE_ATTACK else CD_POWER_DEF
    a0 = a1 = a2 = a3 = 0   # strongest positive fight cards, real or not, descending
    b0 = b1 = b2 = b3 = 0   # strongest positive non-real fight cards, descending
    for i in range(pile_n[pile]):
        card = np.uint64(piles[pile, i])   # never negative: no wraparound code
        x = cards[power_row, card]
        a0, x = max(a0, x), min(a0, x)
        a1, x = max(a1, x), min(a1, x)
        a2, x = max(a2, x), min(a2, x)
        a3 = max(a3, x)
        y = cards[CD_POWER_BLUFF, card]
        b0, y = max(b0, y), min(b0, y)
        b1, y = max(b1, y), min(b1, y)
        b2, y = max(b2, y), min(b2, y)
        b3 = max(b3, y)
    return a0 + a1 + a2 + a3, a3, b0 + b1 + b2 + b3


@njit(cache=True, _nrt=False, inline="always")
def mode_powers(cards, piles, pile_n, pile, side):
    """One pass over a pile: (holds a real card, holds a bluff card, best real power, best
    bluff power). A real play takes its strongest real card (the first of equals), then the
    3 strongest positive other fight cards; a bluff the 4 strongest positive non-real fight
    cards; a power is 0 when the mode cannot be played. The fifth value is the index of
    the first action special in the pile (the pile's size if none): ``choose_action_s``
    needs it from the same pass, and callers that ignore it do not pay for it (the
    function is inlined and the unused value compiled away).

    It is the hottest scan of the engine (about 240 calls a game at 4 players, 5.7 cards
    each). The pass only adds up byte histograms of the powers (``_top4_from_hist`` reads
    the top four from them once); a max/min network per card cost three times the
    instructions. Card files with larger powers take ``_top4_network``."""
    # The card table's derived rows (cards.derived_rows) give each card's role: its flags,
    # its strength if it is the side's real type, and its power counts (PLAI-F1).
    hist_row = CD_HIST_ATT if side == SIDE_ATTACK else CD_HIST_DEF
    real_row = CD_REAL_ATT if side == SIDE_ATTACK else CD_REAL_DEF
    seen = 0                # the flags of all cards, or-ed
    best_real = NOT_REAL    # the strongest real card, NOT_REAL while none is found
    hist = 0                # byte v: the side's fight cards (real or not) of power v
    bluff_hist = 0          # byte v: non-real fight cards of power v
    n = pile_n[pile]
    first_special = n
    for i in range(n):
        if piles[pile, i] < 0:
            break   # never taken (see SCALAR_LOOP)
        card = np.uint64(piles[pile, i])   # never negative: no wraparound code
        flags = cards[CD_FLAGS, card]
        seen |= flags
        first_special = min(first_special, i if flags & FL_ACTION else n)
        # A row load, not "strength if real": LLVM made that a branch on the card's type.
        best_real = max(best_real, cards[real_row, card])
        hist += cards[hist_row, card]
        bluff_hist += cards[CD_HIST_BLUFF, card]
    if (seen & FL_BIG_POWER) or n > HIST_MAX_CARDS:
        top, fourth, bluff_power = _top4_network(cards, piles, pile_n, pile, side)
    else:
        top, fourth = _top4_from_hist(hist)
        bluff_power, _ = _top4_from_hist(bluff_hist)
    found_real = best_real != NOT_REAL
    real_power = 0
    if found_real:
        # The 3 strongest others: the top 4 less one copy of the real card, if it is there.
        if best_real > 0 and best_real >= fourth:
            real_power = top
        else:
            real_power = best_real + top - fourth
    return found_real, (seen & FL_BLUFF) != 0, real_power, bluff_power, first_special


@njit(cache=True, _nrt=False, forceinline=False)
def best_power(cards, piles, pile_n, pile, side, mode):
    """Highest strength the side can show in ``mode`` with up to 4 cards (0 if it cannot)."""
    _, _, real_power, bluff_power, _ = mode_powers(cards, piles, pile_n, pile, side)
    return real_power if mode == MODE_REAL else bluff_power


@njit(cache=True, _nrt=False, forceinline=False)
def holds(cards, piles, pile_n, pile, side, mode):
    """Can the side play in ``mode``? REAL needs its real type; BLUFF a non-real card."""
    has_real, has_bluff, _, _, _ = mode_powers(cards, piles, pile_n, pile, side)
    return has_real if mode == MODE_REAL else has_bluff


# The scores of D1-D4 without noise, one place each: the strategies add their noise to them
# (the decisions below), the search player (search_kernel) ranks its options by them.
@njit(cache=True, _nrt=False, inline="always")
def mode_score(W, ws, side, mode, power, stake, rival_hand, extra):
    """D2 / D3: the score of playing in ``mode`` (MODE_REAL or MODE_BLUFF) with the mode's
    best ``power``, ``stake`` cards at stake, against ``rival_hand`` cards (the attack
    only); ``extra`` (the noise, or 0.0) is added to the stake term, as the decision does."""
    base = F_ATK_REAL if side == SIDE_ATTACK else F_DEF_REAL
    score = W[ws, base + mode - 1] + W[ws, base + 3] * power
    score += W[ws, base + 4] * stake + extra
    if side == SIDE_ATTACK:
        score += W[ws, F_ATK_DEF_HAND] * rival_hand
    return score


@njit(cache=True, _nrt=False, inline="always")
def stop_score(W, ws, strength, count):
    """D2 / D3: the score of stopping after ``count`` cards of total ``strength``."""
    return W[ws, F_STOP] + W[ws, F_STOP_STRENGTH] * strength + W[ws, F_STOP_COUNT] * count


@njit(cache=True, _nrt=False, inline="always")
def funding_score(W, ws, action, attackers, defense, gap):
    """D1: a funding action's score; ``attackers`` who may attack it, ``defense`` the
    hand's defense power, ``gap`` the cards still missing to the takeover threshold after
    it. act.family, act.regional, act.venture are consecutive, like the actions, and
    draw 1, 2, 3 cards."""
    return (W[ws, F_ACT_FAMILY + action - ACT_FAMILY] + W[ws, F_ACT_ATTACKERS] * attackers
            + W[ws, F_ACT_DEFENSE] * (defense if attackers > 0 else 0)
            + W[ws, F_ACT_THRESHOLD_GAP] * gap)


@njit(cache=True, _nrt=False, inline="always")
def funding_setup(rules, pile_n, bankrupt, seat, own, maintainer, startups):
    """D1, once per decision: (the startups that may attack a regional pitch, the cards
    still missing to the takeover threshold) for ``seat`` (``own``: its hand or the pool;
    ``startups``: the startups that could be targets). See ``funding_terms``."""
    regional = 1 if startups > 0 else 0
    if rules[R_REGIONAL_NEXT_PLAYER]:   # only the next seat may attack, if it is a startup
        regional = 1 if bankrupt[seat_after(seat, 1, rules[R_PLAYERS])] < 0 else 0
    return regional, 0 if maintainer else rules[R_TAKEOVER_THRESHOLD] - pile_n[own]


@njit(cache=True, _nrt=False, inline="always")
def funding_terms(action, regional, startups, missing):
    """D1: (attackers, gap) of ``funding_score`` for the funding ``action``, from
    ``funding_setup``'s (regional, missing) and the startups that could attack."""
    attackers = 0
    if action == ACT_REGIONAL:
        attackers = regional
    elif action == ACT_VENTURE:
        attackers = startups
    # act.threshold_gap: cards still missing to the threshold after the funding
    return attackers, max(missing - (action - ACT_FAMILY + 1), 0)   # they draw 1, 2, 3 cards


@njit(cache=True, _nrt=False, inline="always")
def special_score(W, ws, hand, most):
    """D1 + D4: an action special against a target holding ``hand`` cards (``most``: the
    leader's hand, leader_hand)."""
    return (W[ws, F_ACT_SPECIAL] + W[ws, F_TARGET_HAND] * hand
            + W[ws, F_TARGET_LEADER] * (hand == most))


@njit(cache=True, _nrt=False, inline="always")
def takeover_score(W, ws, power, hand, most, turns_left, last_rival):
    """D1 + D4: a takeover with attack ``power`` against a target holding ``hand`` cards."""
    return (W[ws, F_ACT_TAKEOVER] + W[ws, F_ACT_ATTACK] * power
            + W[ws, F_TARGET_HAND] * hand
            + W[ws, F_TARGET_LEADER] * (hand == most)
            + W[ws, F_TAKEOVER_TURNS_LEFT] * turns_left
            + W[ws, F_TAKEOVER_LAST_RIVAL] * last_rival
            + W[ws, F_TAKEOVER_EDGE] * (power - hand))


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def decide_mode_s(W, ws, rng, cards, piles, pile_n, pile, side, allow_none, stake,
                  rival_hand):
    """D2 (side attack) / D3 (side defense): none, real or bluff. Returns MODE_*."""
    base = F_ATK_REAL if side == SIDE_ATTACK else F_DEF_REAL
    best = MODE_NONE
    best_score = NEG_INF
    if allow_none:
        best_score = noise(W, ws, rng)
    has_real, has_bluff, real_power, bluff_power, _ = mode_powers(cards, piles, pile_n, pile,
                                                                  side)
    for mode in (MODE_REAL, MODE_BLUFF):
        if mode == MODE_REAL:
            if not has_real:
                continue
            power = real_power
        else:
            if not has_bluff:
                continue
            power = bluff_power
        score = mode_score(W, ws, side, mode, power, stake, rival_hand, noise(W, ws, rng))
        if mode == MODE_BLUFF and W[ws, base + 2] != 0.0:
            score += W[ws, base + 2] * uniform(rng)   # the bluff coin
        if score > best_score:
            best_score = score
            best = mode
    return best


@njit(cache=True, _nrt=False, inline="always")
def _pick_score(cards, card, real_bit, w_strength, w_real, w_buzz, w_effect):
    """A card's D2/D3 pick score without noise (``real_bit``: the side's real-type flag)."""
    flags = cards[CD_FLAGS, card]     # the card's role (cards.derived_rows)
    is_real = (flags & real_bit) != 0
    is_buzz = (flags & FL_BUZZWORD) != 0
    return (w_strength * cards[CD_STRENGTH, card] + w_real * is_real + w_buzz * is_buzz
            + w_effect * ((flags & FL_FIGHT_EFFECT) != 0))


@njit(cache=True, _nrt=True, forceinline=False)
def pick_table(W, cards):
    """(keys, scores) for the no-noise D2/D3 card picks, once per weight matrix (a batch).

    Without noise a card's pick score depends on the card, the seat and the side only:
    ``scores[seat * 2 + side, card]`` is that score, and each (seat, side, PICK_* case) row
    of ``keys`` holds per card id its rank among all card scores (equal scores, equal
    ranks) and its id, or PICK_NONE if the case may not pick it (see PICK_FIELD).
    ``_best_pick_no_noise`` adds each hand slot's index and takes the largest key: the best
    score, the first slot among equals."""
    n_cards = cards.shape[1]
    keys = np.empty((W.shape[0] * 2 * N_PICK_CASES, n_cards), np.int64)
    scores = np.empty((W.shape[0] * 2, n_cards), np.float64)
    ranks = np.empty(n_cards, np.int64)
    for ws in range(W.shape[0]):
        for side in (SIDE_ATTACK, SIDE_DEFENSE):
            real_bit = FL_ADVERSARY if side == SIDE_ATTACK else FL_USE_CASE
            score = scores[ws * 2 + side]
            for card in range(n_cards):
                score[card] = _pick_score(cards, card, real_bit, W[ws, F_PICK_STRENGTH],
                                          W[ws, F_PICK_REAL], W[ws, F_PICK_BUZZWORD],
                                          W[ws, F_PICK_EFFECT])
            # A card's rank: how many scores are below its own (a NaN score is below none
            # and never picked). Counted pairwise, once per batch: a sort (np.argsort)
            # gave the same ranks but took 1.2 s of a cold compile, on its critical path.
            for card in range(n_cards):
                below = 0
                for other in range(n_cards):
                    below += score[other] < score[card]
                ranks[card] = below
            for card in range(n_cards):
                rank = ranks[card]
                flags = cards[CD_FLAGS, card]
                is_real = (flags & real_bit) != 0
                is_bluff = (flags & FL_BLUFF) != 0
                # A NaN score never beats anything in the general loop: never picked.
                ok = score[card] == score[card]
                row = (ws * 2 + side) * N_PICK_CASES
                key = (rank << PICK_RANK_SHIFT) | card
                keys[row + PICK_BLUFF, card] = key if ok and is_bluff else PICK_NONE
                keys[row + PICK_ANY, card] = key if ok and (is_bluff or is_real) else PICK_NONE
                keys[row + PICK_REAL, card] = key if ok and is_real else PICK_NONE
    return keys, scores


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def pick_cards_s(W, ws, picks, rng, cards, piles, pile_n, src, dst, side, mode, max_cards):
    """D2/D3 cards: move up to ``max_cards`` cards from ``src`` to ``dst`` one pick at a
    time. A real play must end with a real card among them. Returns the number moved.
    ``picks`` is ``pick_table(W, cards)`` (used when the seat's noise weight is 0)."""
    rt = real_type(side)
    allow_real = mode == MODE_REAL
    w_strength = W[ws, F_PICK_STRENGTH]
    w_real = W[ws, F_PICK_REAL]
    w_buzz = W[ws, F_PICK_BUZZWORD]
    w_effect = W[ws, F_PICK_EFFECT]
    count = 0
    strength = 0
    has_real = False
    while count < max_cards:
        need_real = allow_real and not has_real and count == max_cards - 1
        best = -1
        best_score = NEG_INF
        if count > 0 and (mode == MODE_BLUFF or has_real):
            best_score = stop_score(W, ws, strength, count) + noise(W, ws, rng)
        if W[ws, F_NOISE] == 0.0:
            case = PICK_REAL if need_real else (PICK_ANY if allow_real else PICK_BLUFF)
            best, best_score = _best_pick_no_noise(picks[0], picks[1], ws * 2 + side, case,
                                                   piles, pile_n, src, best, best_score)
        else:
            seen = np.uint64(0)
            for i in range(pile_n[src]):
                card = piles[src, i]
                if not fight_playable(cards, card, side, allow_real):
                    continue
                t = cards[CD_TYPE, card]
                is_real = t == rt
                if need_real and not is_real:
                    continue
                first, seen = first_of_id(piles, src, i, seen)
                if not first:
                    continue
                score = (w_strength * cards[CD_STRENGTH, card] + w_real * is_real
                         + w_buzz * (t == BUZZWORD)
                         + w_effect * (cards[CD_EFFECT, card] == EFFECT_DISCARD_RIVAL)
                         + noise(W, ws, rng))
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


@njit(cache=True, _nrt=False, inline="always")
def _best_pick_no_noise(keys, scores, seat_side, case, piles, pile_n, src, best, best_score):
    """One pick of ``pick_cards_s`` when the seat's noise weight is 0 (no draws): the same
    choice as the general loop. Copies of one card id score the same there, so the first
    copy in hand order wins the strict comparison anyway and ``first_of_id`` is not needed.
    The scan is one integer max over the ``pick_table`` keys (no float compare chain per
    card); only the winner's score is compared with ``best_score`` (the stop option)."""
    row = seat_side * N_PICK_CASES + case
    top = PICK_NONE
    slot = PICK_FIELD << PICK_SLOT_SHIFT
    for i in range(pile_n[src]):
        if piles[src, i] < 0:
            break   # never taken (see SCALAR_LOOP)
        card = np.uint64(piles[src, i])   # never negative: no wraparound code
        top = max(top, keys[row, card] + slot)
        slot -= 1 << PICK_SLOT_SHIFT
    if top < 0:
        return best, best_score   # nothing this case may pick
    score = scores[seat_side, np.uint64(top & PICK_FIELD)]
    if score > best_score:
        return PICK_FIELD - ((top >> PICK_SLOT_SHIFT) & PICK_FIELD), score
    return best, best_score


@njit(cache=True, _nrt=False, forceinline=True)
def decide_negate(W, ws, rng, stake):
    """D5: allow (first) or negate a rival effect that would cost ``stake`` cards."""
    allow = noise(W, ws, rng)
    use = W[ws, F_NEGATE] + W[ws, F_NEGATE_STAKE] * stake + noise(W, ws, rng)
    return use > allow


@njit(cache=True, _nrt=False, inline="always")
def _best_help_no_noise(W, ws, cards, piles, pile_n, takeover, best, best_score):
    """One D6 pick of ``pick_help`` when the seat's noise weight is 0: the same choice as
    the general loop (the first copy of an id wins the strict comparison anyway), with the
    card's role read from its flags (FL_BLUFF or the attack's real type: PLAI-F1)."""
    for i in range(pile_n[P_POOL]):
        if piles[P_POOL, i] < 0:
            break   # never taken (see SCALAR_LOOP)
        card = np.uint64(piles[P_POOL, i])   # never negative: no wraparound code
        flags = cards[CD_FLAGS, card]
        playable = (flags & (FL_BLUFF | FL_ADVERSARY)) != 0
        score = (W[ws, F_HELP] + W[ws, F_HELP_STRENGTH] * cards[CD_STRENGTH, card]
                 + W[ws, F_HELP_REAL] * ((flags & FL_ADVERSARY) != 0)
                 + W[ws, F_HELP_TAKEOVER] * takeover + 0.0)
        if playable & (score > best_score):
            best_score = score
            best = i
    return best, best_score


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def pick_help(W, ws, rng, cards, piles, pile_n, max_help, takeover):
    """D6: maintainers add up to ``max_help`` pool cards to the attacking side."""
    added = 0
    while added < max_help:
        best = -1
        best_score = noise(W, ws, rng)   # stop
        if W[ws, F_NOISE] == 0.0:
            best, best_score = _best_help_no_noise(W, ws, cards, piles, pile_n, takeover,
                                                   best, best_score)
        else:
            seen = np.uint64(0)
            for i in range(pile_n[P_POOL]):
                card = piles[P_POOL, i]
                if not fight_playable(cards, card, SIDE_ATTACK, True):
                    continue
                first, seen = first_of_id(piles, P_POOL, i, seen)
                if not first:
                    continue
                score = (W[ws, F_HELP] + W[ws, F_HELP_STRENGTH] * cards[CD_STRENGTH, card]
                         + W[ws, F_HELP_REAL] * (cards[CD_TYPE, card] == ADVERSARY)
                         + W[ws, F_HELP_TAKEOVER] * takeover + noise(W, ws, rng))
                if score > best_score:
                    best_score = score
                    best = i
        if best < 0:
            break
        move(piles, pile_n, P_POOL, best, P_ATTACK)
        added += 1
    return added


@njit(cache=True, _nrt=False, forceinline=True)
def worst_pool_card(W, ws, rng, cards, piles, pile_n):
    """D6 keep (pool_excess: choose): the index of the pool card the maintainers score
    lowest (keep.*), the newest (last) of equal scores; the pool is over its cap."""
    worst = -1
    worst_score = 0.0
    for i in range(pile_n[P_POOL]):
        card = piles[P_POOL, i]
        flags = cards[CD_FLAGS, card]
        attack = (flags & (FL_BLUFF | FL_ADVERSARY)) != 0   # PLAI-F1: it can join an attack
        score = (W[ws, F_KEEP_STRENGTH] * (cards[CD_STRENGTH, card] if attack else 0)
                 + W[ws, F_KEEP_ADVERSARY] * ((flags & FL_ADVERSARY) != 0)
                 + W[ws, F_KEEP_SPECIAL] * ((flags & FL_ACTION) != 0) + noise(W, ws, rng))
        if worst < 0 or score <= worst_score:
            worst = i
            worst_score = score
    return worst


@njit(cache=True, _nrt=False, forceinline=True)
def is_action_special(cards, card):
    e = cards[CD_EFFECT, card]
    return cards[CD_TYPE, card] == SPECIAL and (e == EFFECT_TARGET_DISCARDS
                                                or e == EFFECT_STEAL_RANDOM)


@njit(cache=True, _nrt=False, inline="always")
def leader_hand(pile_n, bankrupt, players, seat):
    """The most cards held by a possible target (every startup but ``seat``), -1 if none."""
    most = -1
    for t in range(players):
        if pile_n[P_HAND0 + t] < 0:
            break   # never taken (see SCALAR_LOOP; a vector loop for 5 seats at most)
        # Without branches: "is t a target" moves round the table every turn, so a branch
        # on it is mispredicted often. A non-target's hand counts as hugely negative (most
        # starts at -1): written as "hand if target else -1", LLVM made it a branch again.
        target = np.int64((t != seat) & (bankrupt[t] < 0))
        most = max(most, pile_n[P_HAND0 + t] - (1 - target) * NOT_A_TARGET)
    return most


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def choose_action_s(W, ws, rng, cards, rules, piles, pile_n, bankrupt, seat, left, turn,
                    options):
    """D1 with D4: returns (action, card id or -1, target seat or -1). ``left`` is the
    number of startups in the game (PLAI-T5), ``turn`` the turn being played (PLAI-T6);
    the leader's hand (D4) is looked up only when a special or a takeover is scored.
    Targets are listed from the next seat clockwise (PLAI-D): the first of equal options
    wins, so a tie goes to the seat that plays next, whatever its number.

    ``options`` None: the engine's choice. A search player's ``Options``
    (sim.core.search_kernel): every option is listed instead, in this order, as (action,
    card, target) with its score without noise (every action special, not only the first
    one that could win)."""
    players = rules[R_PLAYERS]
    maintainer = bankrupt[seat] >= 0
    own = P_POOL if maintainer else P_HAND0 + seat
    startups = left if maintainer else left - 1   # the startups that could be targets
    best_action = -1
    best_card = -1
    best_target = -1
    best_score = NEG_INF
    if maintainer:
        best_action = ACT_PASS
        best_score = W[ws, F_ACT_PASS] + listing_noise(W, ws, rng, options)
        if options is not None:
            add_option(options, ACT_PASS, -1, -1, best_score)
        first, last = ACT_FAMILY, ACT_FAMILY
        defense = 0
        special = 0   # the pool is scanned below
    else:
        first, last = ACT_FAMILY, ACT_VENTURE
        # One pass: the defense power and where the first action special is.
        _, _, defense, _, special = mode_powers(cards, piles, pile_n, own, SIDE_DEFENSE)
    regional, missing = funding_setup(rules, pile_n, bankrupt, seat, own, maintainer, startups)
    for action in range(first, last + 1):
        attackers, gap = funding_terms(action, regional, startups, missing)
        score = (funding_score(W, ws, action, attackers, defense, gap)
                 + listing_noise(W, ws, rng, options))
        if options is not None:
            add_option(options, action, -1, -1, score)
        elif score > best_score:
            best_score, best_action, best_card, best_target = score, action, -1, -1
    if (not maintainer or rules[R_MAINTAINER_SPECIALS]) and W[ws, F_NOISE] == 0.0 and (
            options is None):
        # Without noise a special's score depends on the target only, so the first action
        # special in hand order is the one any later special would have to beat strictly:
        # scoring the others too cannot change the choice. A startup's mode_powers pass
        # above found that special already; the pool is scanned from the start.
        for i in range(special, pile_n[own]):
            card = piles[own, i]
            if not is_action_special(cards, card):
                continue
            most = leader_hand(pile_n, bankrupt, players, seat)
            for k in range(1, players):   # from the next seat clockwise (PLAI-D)
                t = seat_after(seat, k, players)
                if bankrupt[t] >= 0:
                    continue
                hand = pile_n[P_HAND0 + t]
                score = special_score(W, ws, hand, most) + 0.0
                if score > best_score:
                    best_score, best_action, best_card, best_target = score, ACT_SPECIAL, card, t
            break
    elif not maintainer or rules[R_MAINTAINER_SPECIALS]:
        most = leader_hand(pile_n, bankrupt, players, seat)
        seen = np.uint64(0)
        for i in range(pile_n[own]):
            card = piles[own, i]
            if not is_action_special(cards, card):
                continue
            first_copy, seen = first_of_id(piles, own, i, seen)
            if not first_copy:
                continue
            for k in range(1, players):   # from the next seat clockwise (PLAI-D)
                t = seat_after(seat, k, players)
                if bankrupt[t] >= 0:
                    continue
                hand = pile_n[P_HAND0 + t]
                score = special_score(W, ws, hand, most) + listing_noise(W, ws, rng, options)
                if options is not None:
                    add_option(options, ACT_SPECIAL, card, t, score)
                elif score > best_score:
                    best_score, best_action, best_card, best_target = score, ACT_SPECIAL, card, t
    # A takeover at the threshold (PLAI-T1), or a maintainers' challenge (maintainer_attack)
    if ((not maintainer and pile_n[own] >= rules[R_TAKEOVER_THRESHOLD])
            or (maintainer and rules[R_MAINTAINER_ATTACK] and pile_n[own] > 0)):
        has_real, has_bluff, power, _, _ = mode_powers(cards, piles, pile_n, own, SIDE_ATTACK)
        if has_real or has_bluff:
            most = leader_hand(pile_n, bankrupt, players, seat)
            turns_left = rules[R_MAX_TURNS] - turn
            last_rival = startups == 1
            for k in range(1, players):   # from the next seat clockwise (PLAI-D)
                t = seat_after(seat, k, players)
                if bankrupt[t] >= 0:
                    continue
                hand = pile_n[P_HAND0 + t]
                score = (takeover_score(W, ws, power, hand, most, turns_left, last_rival)
                         + listing_noise(W, ws, rng, options))
                if options is not None:
                    add_option(options, ACT_TAKEOVER, -1, t, score)
                elif score > best_score:
                    best_score, best_action, best_card, best_target = (score, ACT_TAKEOVER,
                                                                       -1, t)
    return best_action, best_card, best_target


# Single-seat entry points (one weight vector ``w``), as the tests call them.
@njit(cache=True, _nrt=True, forceinline=False)
def decide_mode(w, rng, cards, piles, pile_n, pile, side, allow_none, stake, rival_hand):
    return decide_mode_s(w.reshape((1, w.shape[0])), 0, rng, cards, piles, pile_n, pile,
                         side, allow_none, stake, rival_hand)


@njit(cache=True, _nrt=True, forceinline=False)
def pick_cards(w, rng, cards, piles, pile_n, src, dst, side, mode, max_cards):
    W = w.reshape((1, w.shape[0]))
    return pick_cards_s(W, 0, pick_table(W, cards), rng, cards, piles, pile_n, src, dst,
                        side, mode, max_cards)


@njit(cache=True, _nrt=True, forceinline=False)
def choose_action(w, rng, cards, rules, piles, pile_n, bankrupt, seat, turn=1):
    left = 0
    for s in range(rules[R_PLAYERS]):
        left += bankrupt[s] < 0
    return choose_action_s(w.reshape((1, w.shape[0])), 0, rng, cards, rules, piles, pile_n,
                           bankrupt, seat, left, turn, None)
