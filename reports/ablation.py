"""The card-ablation section of the report (``write_report(..., extra={"ablation": DIR})``):
reads a ``simulate ablate`` output (``ablation.csv`` + ``ablation.json``, written by
sim.studies.ablation) and shows the paired change of each headline as a sorted forest plot,
the Holm-controlled calls, and an answers-first row per headline."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl

from reports.sections import ExtraSection, register, same_game
from sim.core.errors import UserError
from sim.core.game import card_words
from sim.core.multiple import CONTROL_WORDS
from sim.core.report_metric import Answer, Finding

RESULT_FILE = "ablation.csv"
META_FILE = "ablation.json"
CHANGE_WORDS = {"value-1": "value -1", "value+1": "value +1", "no_effect": "effect removed"}
MAX_ROWS = 40          # forest-plot rows per headline (the largest changes)


def read(directory: str | Path) -> tuple[pl.DataFrame, dict]:
    d = Path(directory)
    table, meta = d / RESULT_FILE, d / META_FILE
    if not table.is_file() or not meta.is_file():
        raise UserError(f"not a 'simulate ablate' output (needs {RESULT_FILE} and {META_FILE})",
                        file=str(d), field="--ablation")
    return pl.read_csv(table), json.loads(meta.read_text(encoding="utf-8"))


def forest_png(table: pl.DataFrame, threshold_pp: float) -> bytes | None:
    from sim.core.plots import to_png

    fig = forest_figure(table, threshold_pp)
    return None if fig is None else to_png(fig)


def forest_figure(table: pl.DataFrame, threshold_pp: float):
    """One panel per headline: every card change's paired effect (pp) with its 95 %
    interval, sorted by size; red = called (differs from the typical card, Holm). The
    threshold band of each row is drawn around its typical card's change, what the call is
    made against, not around 0."""
    from sim.core.plots import new_figure

    if table.height == 0:
        return None
    headlines = table["headline"].unique(maintain_order=True).to_list()
    parts = []
    for h in headlines:
        t = table.filter(pl.col("headline") == h).with_columns(pl.col("diff").abs().alias("_a"))
        parts.append(t.sort("_a", descending=True).head(MAX_ROWS).sort("diff"))
    rows = max(p.height for p in parts)
    fig, axes = new_figure(len(parts), panel_height=0.18 * rows + 1.3)
    for ax, t, h in zip(axes, parts, headlines):
        d, lo, hi = (t[c].to_numpy() * 100 for c in ("diff", "lo", "hi"))
        y = np.arange(t.height)
        ref = t["ref_diff"].to_numpy() * 100
        # each change (value -1, +1, effect removed) has its own typical card
        ax.barh(y, 2 * threshold_pp, left=ref - threshold_pp, height=0.9, color="#2ca02c",
                alpha=0.15, label=f"±{threshold_pp:g} pp around the typical card: not called")
        ax.axvline(0, color="#999", lw=0.8)
        ax.plot(ref, y, "|", color="#555", ms=9, label="typical card (median), same change")
        called = t["called"].to_numpy().astype(bool)
        err = np.vstack([np.nan_to_num(d - lo), np.nan_to_num(hi - d)])
        for mask, color, label in ((~called, "#1f77b4", "not called"),
                                   (called, "#d62728", "called (Holm)")):
            if mask.any():
                ax.errorbar(d[mask], y[mask], xerr=err[:, mask], fmt="o", ms=3, capsize=2,
                            color=color, label=label)
        ax.set_yticks(y)
        ax.set_yticklabels([f"{n}: {CHANGE_WORDS.get(c, c)}" for n, c in
                            zip(t["card_name"], t["change"])], fontsize=6.5)
        ax.set_xlabel(f"paired change of the {h} (pp, variant minus baseline), 95 % interval")
        ax.set_title(f"Card ablation: {h} (n = {int(t['games'][0]):,} games per configuration)",
                     fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    return fig


def build(path, rs, ctx) -> ExtraSection:
    table, meta = read(path)
    same_game("ablation", meta.get("game"), rs.game, str(Path(path) / META_FILE))
    games = int(meta.get("games", 0))
    configurations = int(meta.get("configurations", 0))
    m = int(table["tested"].max() or 0) if table.height else 0
    called = table.filter(pl.col("called")) if table.height else table
    findings = []
    answers = []
    for r in called.sort("p_holm").iter_rows(named=True):
        findings.append(Finding("ablation", "imbalance", (
            f"{card_words(r)}, {CHANGE_WORDS.get(r['change'], r['change'])}: "
            f"the {r['headline']} changes by {100 * r['diff']:+.2f} pp (95 % interval "
            f"{100 * r['lo']:+.2f} to {100 * r['hi']:+.2f}), against {100 * r['ref_diff']:+.2f} pp "
            f"for the typical card ({r['ref_card']}): a difference of {100 * r['vs_ref_diff']:+.2f} pp "
            f"({100 * r['vs_ref_lo']:+.2f} to {100 * r['vs_ref_hi']:+.2f}), called under Holm "
            f"(adjusted p {r['p_holm']:.2g}, one of {m} tests)."), m))
    for h in table["headline"].unique(maintain_order=True).to_list() if table.height else []:
        t = table.filter(pl.col("headline") == h)
        n_called = int(t["called"].sum())
        # the card shown: the first called, else the one furthest from the typical card
        top = (t.filter(pl.col("called")).sort("p_holm") if n_called else t.with_columns(
            pl.col("vs_ref_diff").abs().fill_nan(-1).fill_null(-1).alias("_a")).sort(
            "_a", descending=True)).row(0, named=True)
        # the value shown is what is judged: the card's change minus the typical card's
        value = (top["vs_ref_diff"], top["vs_ref_lo"], top["vs_ref_hi"])
        if n_called:
            words = (f"{top['card_name']} ({_change(top)}) moves "
                     f"it {100 * top['diff']:+.1f} points, the typical card "
                     f"{100 * top['ref_diff']:+.1f}: {_from_typical(top)} ({n_called} called of "
                     f"{m} tested, Holm)")
            code = "above"
        elif m == 0:   # one card ablated: nothing to compare it with
            top = t.with_columns(pl.col("diff").abs().alias("_a")).sort(
                "_a", descending=True).row(0, named=True)
            words = (f"one card ablated, so none compared: {top['card_name']} "
                     f"({_change(top)}) moves it "
                     f"{100 * top['diff']:+.1f} points")
            code = "info"
            value = (top["diff"], top["lo"], top["hi"])
        else:
            words = (f"no card stands out ({m} tested, Holm); furthest from the typical card "
                     f"({top['ref_card']}, {100 * top['ref_diff']:+.1f} points): "
                     f"{top['card_name']} ({_change(top)}) "
                     f"{100 * top['diff']:+.1f} points, {_from_typical(top)}")
            code = "within"
        # the all-lose rate's row says why it moved (the cause of the unhappy customers the
        # change adds or removes), where the ablation recorded it
        why = top.get("all_lose_cause_words")
        causes = ({"cause": top["all_lose_cause"], "kind": "loss_cause", "share": None,
                   "lo": None, "hi": None, "words": why},) if why else ()
        answers.append(Answer(f"What is a card worth? ({h}, ablation)",
                              f"{meta.get('players')} players, {games:,} games per configuration",
                              words, code, *value, kind="diff",
                              players=meta.get("players"), order=45, key="card_worth",
                              causes=causes))
    description = (
        f"Card ablation on common random numbers: the same seed ({meta.get('seed')}) and games "
        f"were replayed with one card changed at a time (value -1, value +1, effect removed): "
        f"{configurations} configurations of {games:,} games, {games * configurations:,} games "
        f"in all ({meta.get('players')} players, backend {meta.get('backend')}). Each point is "
        "the paired change of a headline rate (variant minus baseline, game as the unit, normal "
        "95 % interval): what the card does, not what it goes with. A card is called when its "
        f"change differs from the typical card's (the median) by more than ±{meta.get('threshold_pp')} "
        f"pp, over {m} tests with {CONTROL_WORDS}: the plot's band is drawn around the typical "
        "card's change, and an answer's value is the difference from it.")
    roles = ["card_role"] if "card_role" in table.columns else []
    why = [c for c in ("all_lose_cause", "all_lose_cause_words") if c in table.columns]
    shown = table.select("card_id", "card_name", *roles, "change", "headline", "games",
                         "base_rate", "variant_rate", "diff", "lo", "hi", "ref_card", "vs_ref_diff",
                         "vs_ref_lo", "vs_ref_hi", "p_holm", "called", "tested", *why).rename(
        {"diff": "change_diff", "lo": "change_lo", "hi": "change_hi"}) if table.height else table
    return ExtraSection(name="ablation", title="What a card is worth: card ablation",
                        description=description, table=shown,
                        png=forest_png(table, float(meta.get("threshold_pp", 2.0))),
                        findings=findings, answers=answers, order=100)


def _change(row) -> str:
    """The change, and the card's role when it has one: "value -1; in team A's starting
    deck" (the answers' words, which give the card's name without its id)."""
    change = CHANGE_WORDS.get(row["change"], row["change"])
    return change + (f"; {row['card_role']}" if row.get("card_role") else "")


def _from_typical(row) -> str:
    return (f"{100 * row['vs_ref_diff']:+.1f} [{100 * row['vs_ref_lo']:+.1f}, "
            f"{100 * row['vs_ref_hi']:+.1f}] from the typical card")


register("ablation", build)
