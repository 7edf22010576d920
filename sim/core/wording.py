"""Words that do not overclaim.

An imbalance is called only when the whole 95 % interval of a deviation lies beyond
the threshold (default ±2 percentage points):

* ``above``     – the interval's lower end is above +threshold: called an imbalance;
* ``below``     – the interval's upper end is below -threshold: called an imbalance;
* ``within``    – the whole interval lies inside ±threshold and holds the even point:
  called balanced (within it);
* ``small``     – inside ±threshold but excluding the even point: a small edge, too small
  to call an imbalance;
* ``undecided`` – the interval overlaps a threshold: nothing is called;
* ``no_data``   – no interval (no games).

Every sentence says which interval was used and how the call was made.
"""
from __future__ import annotations

import math

ABOVE, BELOW, WITHIN, UNDECIDED, NO_DATA = "above", "below", "within", "undecided", "no_data"
SMALL = "small"   # the interval excludes the even point, inside the band


def verdict(dev_lo: float, dev_hi: float, threshold_pp: float) -> str:
    """Classify a deviation interval given as fractions (0.03 = 3 pp)."""
    if dev_lo is None or dev_hi is None or math.isnan(dev_lo) or math.isnan(dev_hi):
        return NO_DATA
    t = threshold_pp / 100.0
    eps = 1e-12
    if dev_lo > t + eps:
        return ABOVE
    if dev_hi < -t - eps:
        return BELOW
    if dev_lo >= -t - eps and dev_hi <= t + eps:
        return WITHIN
    return UNDECIDED


def level_of(code: str) -> str:
    """Finding level for a verdict code."""
    return {ABOVE: "imbalance", BELOW: "imbalance", WITHIN: "within", SMALL: "small",
            UNDECIDED: "undecided"}.get(code, "info")


def small_edge(code: str, lo: float, hi: float, even: float) -> bool:
    """Inside the band (``within``) but the interval excludes the even point: a small edge."""
    return code == WITHIN and (lo > even or hi < even)


def pct(x: float, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{100 * x:.{digits}f} %"


def pp(x: float, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{100 * x:+.{digits}f} pp"


def count(n) -> str:
    return f"{int(n):,}"


def plural(n, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def group_label(players, pairing, compensation) -> str:
    text = f"{plural(players, 'player')}, {pairing}"
    if compensation not in (None, "n/a", ""):
        text += f", {compensation}"
    return text


def judge(where: str, quantity: str, est: float, lo: float, hi: float, n: int, *,
          centre: float, centre_words: str, threshold_pp: float, method: str,
          above_words: str, below_words: str, estimate_is_diff: bool = False,
          tested: int = 1, p_holm: float | None = None) -> tuple[str, str]:
    """Return (verdict code, sentence) for an estimate with interval [lo, hi] compared to
    ``centre`` (0.5 for a share, 0 for a difference), with the decision rule spelled out.

    ``above_words`` / ``below_words`` name what a deviation in each direction means,
    e.g. "team A is favoured".

    ``tested`` is the size of the family this test belongs to and ``p_holm`` its
    Holm-adjusted p-value (sim.core.multiple): with more than one test, an interval beyond
    the threshold is called an imbalance only when the family's control calls it too; the
    code returned is then UNDECIDED, and every sentence says how many were tested.
    """
    from sim.core.multiple import ALPHA, CONTROL
    fmt = pp if estimate_is_diff else pct
    code = verdict(lo - centre, hi - centre, threshold_pp)
    t = f"{threshold_pp:g} pp"
    stated = (f"{quantity} is {fmt(est)} (95 % {method} interval {fmt(lo)} to {fmt(hi)}, "
              f"n = {count(n)})")
    stated = stated[:1].upper() + stated[1:]
    if code == NO_DATA:
        return code, f"{where}: no data for {quantity} (n = {count(n)}), so nothing is called."
    family = (f" ({CONTROL}: one of {count(tested)} tests of this family, adjusted p "
              f"{p_holm:.2g})" if tested > 1 and p_holm is not None and p_holm == p_holm else "")
    if code in (ABOVE, BELOW):
        direction = "above" if code == ABOVE else "below"
        words = above_words if code == ABOVE else below_words
        if tested > 1 and p_holm is not None and not p_holm < ALPHA:
            return UNDECIDED, (f"{where}: not called after the correction for {count(tested)} "
                               f"tests. {stated}; on its own the interval lies more than {t} "
                               f"{direction} {centre_words}, but {CONTROL}'s correction over "
                               f"the {count(tested)} tests of this family does not call it "
                               f"(adjusted p {p_holm:.2g}).")
        return code, (f"{where}: {words}. {stated}; the whole interval lies more than {t} "
                      f"{direction} {centre_words}, so this is called an imbalance{family}.")
    excludes_centre = lo > centre or hi < centre
    if code == WITHIN:
        small = small_edge(code, lo, hi, centre)   # as edge_answer (the answers table)
        head = f"a small edge, inside the ±{t} band" if small else f"balanced within ±{t}"
        tail = (f"; it does exclude {centre_words}: "
                f"{above_words if est > centre else below_words}, by less than {t}"
                if small else "")
        return (SMALL if small else code), (
            f"{where}: {head}. {stated}; the whole interval lies within ±{t} of "
            f"{centre_words}, so no imbalance larger than {t} is likely" + tail
            + (f" (one of {count(tested)} tests)" if tested > 1 else "") + ".")
    extra = (" The interval does exclude " + centre_words + ", so there is a difference, "
             f"but it is not shown to exceed {t}." if excludes_centre else "")
    return code, (f"{where}: not decided. {stated}; the interval crosses the ±{t} threshold "
                  f"around {centre_words}, so neither an imbalance nor balance within {t} is "
                  f"called; more games would narrow it.{extra}"
                  + (f" One of {count(tested)} tests of this family." if tested > 1 else ""))


def edge_answer(est: float, lo: float, hi: float, even: float, threshold_pp: float,
                above: str, below: str,
                furthest_of: tuple[int, int, float, int] | None = None) -> tuple[str, str]:
    """The one wording of an edge, for every place that shows one (summary, report, answers
    table, answers.json, workbench): (verdict code, words). ``above`` / ``below`` say whom
    an edge above / below ``even`` favours, as "to team A" or "against seat 0".

    - the interval wholly beyond ±threshold: "an edge to team B of 3.3 points, beyond the
      ±2 band" (``above`` / ``below``: an imbalance called);
    - inside the band but excluding the even point: "a small edge to team B (1.6 points),
      inside the ±2 band" (``small``: an edge, too small to call an imbalance);
    - inside the band and holding the even point: "balanced (within ±2 pp)" (``within``);
    - crossing the band: "not decided: an edge to team B of 2.1 points, the interval
      crossing the ±2 band" when it excludes the even point, else "not decided (...)".

    ``furthest_of`` (successes, n, fair share, places): the edge is that of the place
    furthest from its fair share of ``places``, judged as such (``furthest_answer``).
    """
    code, words = _edge_words(est, lo, hi, even, threshold_pp, above, below)
    if furthest_of is not None:
        return furthest_answer(code, words, *furthest_of, threshold_pp)
    return code, words


def claims_edge(verdict_code: str, lo: float, hi: float, even: float | None) -> bool:
    """Does an answer claim an edge its replays can explain: its interval excludes the even
    point and its verdict says so? (The seat furthest of several from its fair share can
    be balanced with its own interval excluding it: ``furthest_answer``.)"""
    return (even is not None and lo == lo and hi == hi and verdict_code != WITHIN
            and (lo > even or hi < even))


def _edge_words(est: float, lo: float, hi: float, even: float, threshold_pp: float,
                above: str, below: str) -> tuple[str, str]:
    """``edge_answer``'s verdict and words from the answer's own interval."""
    code = verdict(lo - even, hi - even, threshold_pp)
    t = f"±{threshold_pp:g}"
    if code == NO_DATA:
        return code, "no data"
    side = above if est >= even else below
    points = f"{abs(est - even) * 100:.1f} points"
    excludes = lo > even or hi < even
    if code == WITHIN:
        if small_edge(code, lo, hi, even):
            return SMALL, f"a small edge {side} ({points}), inside the {t} band"
        return code, f"balanced (within {t} pp)"
    if code == UNDECIDED:
        if excludes:
            return code, (f"not decided: an edge {side} of {points}, the interval crossing "
                          f"the {t} band")
        return code, "not decided (the interval crosses the threshold; more games would narrow it)"
    return code, f"an edge {side} of {points}, beyond the {t} band"


def furthest_answer(code: str, words: str, successes: int, n: int, even: float, places: int,
                    threshold_pp: float) -> tuple[str, str]:
    """``edge_answer``'s (code, words) for the place furthest from its fair share ``even``
    of ``places`` places (PLAI's seat balance: ``successes`` of the ``n`` games a startup
    won). Of several fair places one often lies outside its own 95 % interval by chance, so
    a small edge stays one only when the interval widened for all ``places`` together
    (Bonferroni, sim.core.stats.z_of_many) still excludes ``even``; otherwise the answer is
    balanced, and says that the furthest place is as far off as chance puts one of them.
    Only a small edge is judged again: a wider interval leaves "not decided" as it is, and
    an edge beyond the band keeps the seat's own interval (the report calls it an
    imbalance only under Holm's correction over the seats)."""
    # two shares that add up to the whole are one test: either is as far off as the other
    if code != SMALL or places < 3 or not n:
        return code, words
    from sim.core.stats import wilson, z_of_many

    _, lo, hi = wilson(successes, n, z_of_many(places))
    if lo > even or hi < even:
        return code, words
    points = abs(successes / n - even) * 100
    return WITHIN, (f"balanced (within ±{threshold_pp:g} pp; the furthest of the {places} is "
                    f"{points:.1f} points from its fair share, as chance often puts one of "
                    f"{places})")


DEFAULT_THRESHOLD_PP = 2.0   # the reports' default imbalance threshold (--threshold)

HOLDS, CHANGES, NOT_DECIDED = "holds", "changes", "not decided"   # under stronger play


def under_stronger_play(lo: float, hi: float,
                        threshold_pp: float = DEFAULT_THRESHOLD_PP) -> str:
    """Whether an answer holds under stronger play, from the 95 % interval [lo, hi]
    (fractions) of its difference from the runs' own: HOLDS when the whole interval lies
    within ±threshold_pp points (stronger play moves it by less than the band), CHANGES when
    it excludes 0, else NOT_DECIDED: the interval holds 0 but reaches past the band, so the
    search games are too few to tell a change that matters from none."""
    band = threshold_pp / 100
    if lo > 0 or hi < 0:
        return CHANGES
    return HOLDS if -band <= lo and hi <= band else NOT_DECIDED


def verdicts_counted(statuses: list, changes: tuple[str, str] = ("changes", "change")) -> str:
    """How many stronger-play verdicts (``under_stronger_play``'s statuses; None: no
    interval) are of each kind: "3 hold, 1 changes and 1 is not decided". ``changes``: the
    word for CHANGES, singular and plural ("differs", "differ" in compare)."""
    def counted(status, one: str, many: str) -> str:
        n = statuses.count(status)
        return f"{n} {one if n == 1 else many}"

    said = [counted(HOLDS, "holds", "hold"), counted(CHANGES, *changes),
            counted(NOT_DECIDED, "is not decided", "are not decided")]
    if None in statuses:
        said.append(counted(None, "has no interval", "have no interval")
                    + " (too few search games)")
    return f"{', '.join(said[:-1])} and {said[-1]}"


def balance_line(balance: dict, label: str, quantity: str) -> str:
    """A run summary's balance line: its verdict words and the quantity with its interval;
    then, when replays explained an edge (``balance["causes"]``, sim.runs.explain), a line
    naming its main cause, or saying the replayed games were too few to trace it, or that
    no declared swap explains it."""
    line = (f"{label}: {balance['words']}; {quantity} {100 * balance['value']:.2f} % "
            f"[95 % CI {100 * balance['lo']:.2f} - {100 * balance['hi']:.2f}]")
    if balance.get("causes") is None or not balance.get("replayed"):
        return line
    from sim.core.attribution import fraction_text

    main = balance.get("main_cause")
    replayed = f"{balance['replayed']:,} games replayed per swap"
    if main:
        share = fraction_text(main.get("fraction", float("nan")),
                              main.get("fraction_lo", float("nan")),
                              main.get("fraction_hi", float("nan")),
                              main.get("edge_lo", float("nan")), main.get("edge_hi", float("nan")))
        share = f", {share}" if share else ""
        return (f"{line}\n  main cause: {main['label']}, "
                f"{100 * main['share']:.1f} points [{100 * main['lo']:.1f}, "
                f"{100 * main['hi']:.1f}] of the {100 * main['edge']:.1f}-point edge of "
                f"the replayed games{share} ({replayed})")
    exchanges = [c for c in balance["causes"] if c.get("kind") == "exchange"]
    if exchanges and all("edge_lo" in c and c["edge_lo"] <= 0 <= c["edge_hi"]
                         for c in exchanges):
        # the replayed games show no edge to split: "no swap explains it" would blame the
        # game for what is too few games
        top = max(exchanges, key=lambda c: c["share"])
        return (f"{line}\n  cause not traced: the edge of the {replayed} is within noise "
                f"({100 * top['edge']:.1f} points [{100 * top['edge_lo']:.1f}, "
                f"{100 * top['edge_hi']:.1f}]); {top['label']} takes "
                f"{100 * top['share']:.1f} points [{100 * top['lo']:.1f}, "
                f"{100 * top['hi']:.1f}] of it; a report with more --replay-games can tell")
    return f"{line}\n  no swap the game declares explains it ({replayed})"


def interval_digits(lo: float, hi: float, digits: int, scale: float = 1.0,
                    most: int = 4) -> int:
    """Decimals (from ``digits`` up to ``most``) for an interval of positive width not to
    print as a point: 17 of 20,000 games is 0.08 % [0.05, 0.14], not 0.1 % [0.1, 0.1]. The
    ends are compared as the numbers printed, so -0.0 and +0.0 are one point."""
    def shown(v: float, d: int) -> float:
        return round(scale * v, d) + 0.0

    while digits < most and lo != hi and shown(lo, digits) == shown(hi, digits):
        digits += 1
    return digits


def interval_text(est: float, lo: float, hi: float, digits: int, scale: float = 1.0,
                  unit: str = "") -> str:
    """``est{unit} [lo, hi]`` (times ``scale``) with ``interval_digits``' decimals; "n/a"
    when any is missing."""
    if any(v is None or v != v for v in (est, lo, hi)):
        return "n/a"
    places = interval_digits(lo, hi, digits, scale)
    est, lo, hi = (round(scale * v, places) + 0.0 for v in (est, lo, hi))
    return f"{est:.{places}f}{unit} [{lo:.{places}f}, {hi:.{places}f}]"
