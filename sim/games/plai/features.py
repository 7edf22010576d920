"""Decision features for PLAI strategies (PLAI-D) and the game's default weights.

For each decision the kernel lists the legal options in a fixed order, scores each as
``weights . features`` and takes the best; the first option in the order below wins a
tie. ``noise`` is a uniform draw in [0, 1) from the game's random stream, made for every
option of every decision in that order, and only when its weight is not zero.

Option order (the engine relies on it):
- D1+D4 a startup's action: family, regional, venture, then each action special in hand
  (first copy of each card id, in hand order) on each other startup, then a hostile
  takeover of each other startup. A maintainer's action: pass, family, then each action
  special in the pool on each startup, then (maintainer_attack) a challenge of each
  startup. Targets are listed from the next seat clockwise from the deciding seat (PLAI-D),
  so a tie between equal targets never favours a seat number.
- D2 attack (per funding, per asked startup): none, real, bluff. In a hostile takeover the
  challenger picks real or bluff only (it already chose to fight).
- D3 defend: none, real, bluff.
- D2/D3 cards, one pick at a time up to 4: stop (legal once one card is down and, unless
  bluffing, a real card is among them), then each eligible card id in hand order.
- D5 negate: allow, negate.
- D6 maintainer help, one pick at a time: stop, then each eligible card id in pool order.
  D6 keep (pool_excess: choose): each pool card scores keep.*; while the pool is over its
  cap the lowest score goes, the newest card of equal scores first.

Some features have weight 0 in every shipped strategy unless set, so they change no game
until a strategy gives them a weight: takeover.* (a takeover's prospects and the turn cap)
and act.threshold_gap.
"""
import numpy as np

F_NOISE = 0
# D1 + D4: the action and its target
F_ACT_PASS = 1             # maintainers only
F_ACT_FAMILY = 2
F_ACT_REGIONAL = 3
F_ACT_VENTURE = 4
F_ACT_SPECIAL = 5
F_ACT_TAKEOVER = 6
F_ACT_ATTACKERS = 7        # startups allowed to attack this funding
F_ACT_DEFENSE = 8          # attackable funding: my best real defense strength (0 without a use case)
F_ACT_ATTACK = 9           # takeover: my best real attack strength (0 without an adversary)
F_TARGET_HAND = 10         # special or takeover: the target's hand size
F_TARGET_LEADER = 11       # 1 if the target holds the most cards of the possible targets
# D2: attack a funding or pick the takeover mode
F_ATK_REAL = 12
F_ATK_BLUFF = 13
F_ATK_COIN = 14            # bluff option: a uniform draw (drawn only if its weight != 0)
F_ATK_POWER = 15           # best strength in this mode with up to 4 cards
F_ATK_PRIZE = 16           # cards at stake (face-down funding cards or target's hand)
F_ATK_DEF_HAND = 17        # defender's hand size
# D3: defend
F_DEF_REAL = 18
F_DEF_BLUFF = 19
F_DEF_COIN = 20
F_DEF_POWER = 21
F_DEF_STAKE = 22           # funding cards, or my whole hand in a takeover
# D2/D3 cards
F_PICK_STRENGTH = 23
F_PICK_REAL = 24           # adversary (attack) / use case (defense)
F_PICK_BUZZWORD = 25
F_PICK_EFFECT = 26         # a card with a fight effect (GDPR Fine)
F_STOP = 27
F_STOP_STRENGTH = 28       # strength of the cards already chosen
F_STOP_COUNT = 29          # cards already chosen
# D5
F_NEGATE = 30
F_NEGATE_STAKE = 31        # cards the rival effect would cost me
# D6
F_HELP = 32
F_HELP_STRENGTH = 33
F_HELP_REAL = 34
F_HELP_TAKEOVER = 35       # 1 in a hostile takeover (a win there can bankrupt the defender)
# D6 keep (pool_excess: choose): a pool card's score; the lowest go when over the cap
F_KEEP_STRENGTH = 36       # the card's strength if the pool can attack with it (PLAI-F1), else 0
F_KEEP_ADVERSARY = 37      # 1 for an adversary (makes a help or a challenge real)
F_KEEP_SPECIAL = 38        # 1 for an action special (target_discards, steal_random)
# D1: seeing a takeover coming, and the turn cap (PLAI-T6)
F_ACT_THRESHOLD_GAP = 39   # a funding: cards still missing to takeover_threshold after it
F_TAKEOVER_TURNS_LEFT = 40 # takeover: turns left before max_turns (a stalemate)
F_TAKEOVER_LAST_RIVAL = 41 # takeover: 1 if the target is the last other startup (a win ends the game)
F_TAKEOVER_EDGE = 42       # takeover: my best attack power minus the target's hand size
NF = 43

FEATURE_NAMES = (
    "noise",
    "act.pass", "act.family", "act.regional", "act.venture", "act.special", "act.takeover",
    "act.attackers", "act.defense_power", "act.attack_power", "target.hand", "target.leader",
    "attack.real", "attack.bluff", "attack.bluff_coin", "attack.power", "attack.prize",
    "attack.defender_hand",
    "defend.real", "defend.bluff", "defend.bluff_coin", "defend.power", "defend.stake",
    "pick.strength", "pick.real", "pick.buzzword", "pick.effect", "pick.stop",
    "pick.stop_strength", "pick.stop_count",
    "negate.use", "negate.stake",
    "help.card", "help.strength", "help.real", "help.takeover",
    "keep.strength", "keep.adversary", "keep.special",
    "act.threshold_gap", "takeover.turns_left", "takeover.last_rival", "takeover.edge",
)
assert len(FEATURE_NAMES) == NF

# The decision each feature scores (G_*), the random draws apart (G_NOISE: noise and the
# bluff coins). The search player decides the action (D1 + D4), the attack's cards (D2)
# and the defense (D3): it records the features of those decisions' options, and a
# policy fitted to its choices learns their weights (sim/studies/distill.py); the others
# are copied from the search's base.
G_NOISE, G_ACTION, G_ATTACK, G_DEFEND, G_CARDS, G_NEGATE, G_HELP, G_KEEP = range(8)
FEATURE_GROUP = np.array(
    [G_NOISE] + [G_ACTION] * 11 + [G_ATTACK, G_ATTACK, G_NOISE, G_ATTACK, G_ATTACK, G_ATTACK]
    + [G_DEFEND, G_DEFEND, G_NOISE, G_DEFEND, G_DEFEND] + [G_CARDS] * 7 + [G_NEGATE] * 2
    + [G_HELP] * 4 + [G_KEEP] * 3 + [G_ACTION] * 4, dtype=np.int64)
assert FEATURE_GROUP.shape == (NF,)
SEARCHED_GROUPS = (G_ACTION, G_ATTACK, G_DEFEND, G_CARDS)

# The game's default play: a plain greedy reading of the sheet, not a tuned strategy.
DEFAULT_WEIGHTS_BY_NAME = {
    "act.pass": -5.0, "act.family": 1.0, "act.regional": 1.3, "act.venture": 1.5,
    "act.special": 1.2, "act.takeover": -1.0, "act.attackers": -0.35,
    "act.defense_power": 0.08, "act.attack_power": 0.2, "target.hand": 0.1,
    "target.leader": 0.5,
    "attack.real": -2.0, "attack.bluff": -6.0, "attack.power": 0.3, "attack.prize": 0.6,
    "attack.defender_hand": -0.1,
    "defend.real": -1.0, "defend.bluff": -6.0, "defend.power": 0.2, "defend.stake": 0.6,
    "pick.strength": 1.0, "pick.real": 3.0, "pick.effect": 1.5, "pick.stop_strength": 0.6,
    "negate.use": -0.5, "negate.stake": 1.0,
    "help.card": -1.5, "help.strength": 0.2, "help.real": 0.5, "help.takeover": 2.0,
    # D6 keep (pool_excess: choose): the maintainers keep the action specials they play;
    # of the other cards the newest go. (Keeping strong attack cards too hoards them out
    # of play: at 4-5 players 12-23 % of games then stall to max_turns.)
    "keep.special": 4.0,
}
DEFAULT_WEIGHTS = np.zeros(NF, dtype=np.float64)
for _name, _value in DEFAULT_WEIGHTS_BY_NAME.items():
    DEFAULT_WEIGHTS[FEATURE_NAMES.index(_name)] = _value
