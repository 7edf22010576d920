"""Card ablation on common random numbers: what each card does to the headline rates.

For each card (or the cards named), the same seed and game indices are replayed with the
card changed, one change at a time: its value -1, its value +1, its effect removed (the
game's ``Game.ablation_fields`` names the value and effect columns of its card file). A
game depends only on (seed, game index, configuration), so game i of a variant is game i
of the baseline with that one card changed: the per-game difference of an outcome
indicator (variant minus baseline) has a small variance, and its mean with a 95 % interval
(normal, game as the unit) is the card's paired effect on that headline.

The headlines: each game falls in one of the game's headline categories, its
``Game.ablation_outcomes`` (PLAI: which seat won, the maintainers won, a stalemate; each
seat's win rate is what a designer of a free-for-all asks), or else its outcome codes
(``outcome_column``, ``outcome_codes``; Peer-to-Peer: team A wins, team B wins, everyone
loses, ...). See ``headline_outcomes``.

What is called: a card whose effect differs from the typical card's. Per change and
headline, the reference is the card with the median effect; each other card is tested on
the same games against it (the per-game difference of the two variants' indicators), for
lying beyond ± the threshold, and the whole family (every card x change x headline
tested) is controlled with Holm (sim.core.multiple). With every card equal, no card is
called however many games are played; a card made stronger is called, first. The typical
card is the median of the cards ablated: ablate every card (the default) for "stronger than
the deck's typical card"; with a few cards named (``--card``) the calls compare them with
each other.

Every run is an ordinary run directory (``<out>/baseline``, ``<out>/<card>-<change>``)
played on any backend (``sim.runs.backends``); ``<out>/ablation.csv`` and
``ablation.json`` hold the result, which ``simulate report --ablation <out>`` shows.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import polars as pl

from sim.core.errors import UserError
from sim.core.game import card_words, cards_words, resolve_game
from sim.core.multiple import ALPHA, CONTROL, family_size, holm, p_beyond

CHANGES = ("value-1", "value+1", "no_effect")
CHANGE_WORDS = {"value-1": "value -1", "value+1": "value +1", "no_effect": "effect removed"}
Z95 = 1.959964
RESULT_FILE = "ablation.csv"
META_FILE = "ablation.json"


@dataclass
class AblationResult:
    out: Path
    table: pl.DataFrame                   # one row per card x change x headline
    games: int                            # games per configuration
    configurations: int                   # baseline + variants played
    skipped: list[str] = field(default_factory=list)   # changes a card file refused
    meta: dict = field(default_factory=dict)

    @property
    def games_played(self) -> int:
        return self.games * self.configurations

    def called(self) -> pl.DataFrame:
        return self.table.filter(pl.col("called")).sort("p_holm")

    def to_text(self) -> str:
        lines = [f"Card ablation: {self.meta.get('game')}, {self.meta.get('players')} players, "
                 f"{self.games:,} games per configuration, {self.configurations} configurations "
                 f"({self.games_played:,} games), seed {self.meta.get('seed')}"
                 + (f"; {self.meta['pairing']}" if self.meta.get("pairing") else "")
                 + (f"; cards: {self.meta['cards_words']}" if self.meta.get("cards_words") else "")
                 + "."]
        called = self.called()
        m = int(self.table["tested"].max() or 0) if self.table.height else 0
        named = self.meta.get("named_cards")
        if named and len(named) == 1:
            lines.append(f"One card ablated ({named[0]}): no other card to compare it with, so "
                         "none is called; its own paired changes are below.")
        elif called.height == 0:
            lines.append(f"No card called ({m} tests, {CONTROL}, threshold "
                         f"±{self.meta.get('threshold_pp'):g} pp against the typical card).")
        if named and len(named) > 1:
            lines.append(f"The typical card is the median of the {len(named)} cards --card named "
                         f"({', '.join(named)}), so the calls compare them with each other, not "
                         "with the deck; without --card every card the games deal is ablated.")
        for r in called.iter_rows(named=True):
            lines.append(f"  {card_words(r)}, {CHANGE_WORDS[r['change']]}: "
                         f"{r['headline']} {100 * r['diff']:+.2f} pp [{100 * r['lo']:+.2f}, "
                         f"{100 * r['hi']:+.2f}], typical card {100 * r['ref_diff']:+.2f} pp "
                         f"(called, Holm p {r['p_holm']:.2g}, {m} tests)")
        top = self.table.with_columns(pl.col("diff").abs().alias("_a")).sort(
            "_a", descending=True).head(10)
        width = max([16, *(len(h) for h in top["headline"])])
        cards = max([30, *(len(card_words(r)) for r in top.iter_rows(named=True))])
        lines.append("Largest paired changes (variant minus baseline, 95 % interval):")
        for r in top.iter_rows(named=True):
            card = card_words(r)   # with its id: a name may stand for several cards
            lines.append(f"  {card:<{cards}} {CHANGE_WORDS[r['change']]:<15} "
                         f"{r['headline']:<{width}} {100 * r['diff']:+7.2f} pp "
                         f"[{100 * r['lo']:+.2f}, {100 * r['hi']:+.2f}]")
            if r.get("all_lose_cause_words"):   # why the all-lose rate moved
                lines.append(f"    why: {r['all_lose_cause_words']}")
        lines += [f"  skipped: {s}" for s in self.skipped]
        if top.height:   # every variant is a run paired with the baseline
            first = top.row(0, named=True)
            lines.append(f"Under stronger play: not checked here; simulate compare "
                         f"{self.out / 'baseline'} "
                         f"{self.out / variant_directory(first['card_id'], first['change'])} "
                         "checks a change (here the largest) with search on every side.")
        lines.append(f"Written: {self.out / RESULT_FILE}")
        return "\n".join(lines)


def card_roles(game_obj, cards_path: str, card_ids, players: int) -> dict[str, str]:
    """Card id -> its role (``Game.card_role``) for those of ``card_ids`` that have one."""
    from sim.studies.experiments.cardfile import CardCsv

    if game_obj.card_role is None:
        return {}
    cards, roles = CardCsv(cards_path, game_obj.name), {}
    for i in cards.rows:
        if cards.card_id(i) in card_ids:
            role = game_obj.card_role({h: cards.get(i, h) for h in cards.header}, players)
            if role:
                roles[cards.card_id(i)] = role
    return roles


def variant_directory(card_id: str, change: str) -> str:
    """The run directory's name of one card's change ("te13-valueminus1")."""
    return f"{_slug(card_id)}-{change.replace('+', 'plus').replace('-', 'minus')}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-") or "card"


def _variants(cards_path: str, game: str, only, changes) -> tuple[list[tuple], Any]:
    """[(card_id, card_name, change, CardCsv)] and the card file's table (CardCsv)."""
    from sim.studies.experiments.cardfile import CardCsv

    value_field, effect_field = resolve_game(game).ablation_fields
    base = CardCsv(cards_path, game)
    indices = list(base.rows)
    if only:
        try:
            indices = list(dict.fromkeys(i for ref in only for i in base.find_all(ref)))
        except KeyError as exc:
            raise UserError(str(exc.args[0]), file=cards_path, field="--card") from None
    out = []
    for i in indices:
        cid = base.card_id(i)
        name = base.get(i, "name") or cid
        for change in changes:
            table = base.copy()
            if change == "no_effect":
                if effect_field is None or not base.get(i, effect_field):
                    continue                       # no effect to remove
                table.set(i, effect_field, "")
            else:
                raw = base.get(i, value_field)
                try:
                    value = int(raw)
                except ValueError:
                    continue                       # a card without a numeric value
                table.set(i, value_field, value + (1 if change == "value+1" else -1))
            out.append((cid, name, change, table))
    return out, base


def headline_outcomes(game: Any, games: pl.DataFrame,
                      players: int) -> tuple[np.ndarray, dict[str, int]]:
    """Each game's headline code (a row of ``games``) and the headlines' names -> code: the
    game's ``ablation_outcomes`` (PLAI: the winning seat, the maintainers, a stalemate), or
    its ``outcome_column`` with the ``outcome_codes`` (Peer-to-Peer: team A, team B, ...)."""
    if game.ablation_outcomes is None:
        return games[game.outcome_column].to_numpy(), dict(game.outcome_codes)
    codes, names = game.ablation_outcomes(games, players)
    return np.asarray(codes), dict(names)


def _outcomes(run_dir: Path, game: Any, players: int) -> tuple[np.ndarray, dict[str, int]]:
    columns = dict.fromkeys((game.outcome_column, *game.headline_columns))   # either's reads
    t = (pl.scan_parquet(str(run_dir / "games" / "*.parquet"))
         .select("game_index", *columns).collect().sort("game_index"))
    return headline_outcomes(game, t, players)


def _cause_columns(run_dir: Path, game: Any) -> pl.DataFrame | None:
    """A run's games with the columns of the all-lose causes, by game index (None for a
    game without causes)."""
    from sim.core.loss_causes import PairedLossCauses

    causes = PairedLossCauses.of(game)
    if causes is None:
        return None
    return (pl.scan_parquet(str(run_dir / "games" / "*.parquet"))
            .select("game_index", *causes.columns).collect().sort("game_index"))


def _loss_causes(base: pl.DataFrame | None, variant_dir: Path, game: Any) -> Any:
    """The all-lose causes of a variant against the baseline's (``_cause_columns``), game
    by game (sim.core.loss_causes.PairedLossCauses), or None for a game without causes."""
    from sim.core.loss_causes import PairedLossCauses

    if base is None:
        return None
    causes = PairedLossCauses.of(game)
    causes.add_aligned(base, _cause_columns(variant_dir, game))
    return causes


def _with_loss_causes(table: pl.DataFrame, causes: Mapping[tuple[str, str], Any], game: Any,
                      codes: Mapping[str, int]) -> pl.DataFrame:
    """``all_lose_cause`` and ``all_lose_cause_words`` on the all-lose rate's rows: the
    cause of the unhappy customers the change adds or removes (None when the total did not
    change clearly, and on the other headlines' rows)."""
    why = game.why_lose
    headline = next((f"{name} rate" for name, code in codes.items()
                     if why is not None and code == why.code), None)
    found = [{"card_id": cid, "change": change, "headline": headline,
              "all_lose_cause": (tally.main(Z95) or {}).get("cause"),
              "all_lose_cause_words": tally.lead(Z95, actor="the change")}
             for (cid, change), tally in causes.items() if tally is not None and headline]
    schema = {"card_id": pl.Utf8, "change": pl.Utf8, "headline": pl.Utf8,
              "all_lose_cause": pl.Utf8, "all_lose_cause_words": pl.Utf8}
    return table.join(pl.DataFrame(found, schema=schema), on=["card_id", "change", "headline"],
                      how="left", maintain_order="left")


def _paired(x: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean of per-game differences and its normal 95 % interval."""
    n = x.size
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else float("nan")
    half = z * sd / math.sqrt(n) if n > 1 else float("nan")
    return mean, mean - half, mean + half


def paired_table(base: np.ndarray, variants: list[tuple[str, str, str, np.ndarray]],
                 codes: Mapping[str, int], threshold_pp: float) -> pl.DataFrame:
    """The ablation table from the baseline's and each variant's per-game headline codes
    (aligned by game index; ``codes``: headline name -> code, see ``headline_outcomes``):
    per card x change x headline (every code the baseline or a variant reaches), the
    paired change with its interval, the typical card (median change) it is compared with,
    and the Holm-controlled call."""
    t = threshold_pp / 100.0
    rows = []
    for headline, code in codes.items():
        b = (base == code).astype(np.int8)
        if not b.any() and not any((v == code).any() for *_, v in variants):
            continue
        for change in CHANGES:
            group = [(cid, name, (v == code).astype(np.int8)) for cid, name, ch, v in variants
                     if ch == change]
            if not group:
                continue
            diffs = [(_paired(ind - b), cid, name, ind) for cid, name, ind in group]
            order = sorted(range(len(diffs)), key=lambda j: diffs[j][0][0])
            ref = diffs[order[(len(order) - 1) // 2]]
            for (d, lo, hi), cid, name, ind in diffs:
                is_ref = cid == ref[1]
                if is_ref:
                    rd = (float("nan"),) * 3
                else:
                    rd = _paired(ind - ref[3])   # this card against the typical card
                rows.append({"card_id": cid, "card_name": name, "change": change,
                             "headline": f"{headline} rate", "games": int(b.size),
                             "base_rate": float(b.mean()), "variant_rate": float(ind.mean()),
                             "diff": d, "lo": lo, "hi": hi, "ref_card": ref[2],
                             "ref_diff": ref[0][0], "vs_ref_diff": rd[0], "vs_ref_lo": rd[1],
                             "vs_ref_hi": rd[2],
                             "p_beyond": (float("nan") if is_ref else
                                          p_beyond(rd[0], rd[1], rd[2], 0.0, t))})
    schema = {"card_id": pl.Utf8, "card_name": pl.Utf8, "change": pl.Utf8, "headline": pl.Utf8,
              "games": pl.Int64, **{c: pl.Float64 for c in ("base_rate", "variant_rate", "diff",
                                                               "lo", "hi")},
              "ref_card": pl.Utf8, **{c: pl.Float64 for c in ("ref_diff", "vs_ref_diff",
                                                              "vs_ref_lo", "vs_ref_hi",
                                                              "p_beyond")}}
    table = pl.DataFrame(rows, schema=schema)
    p = table["p_beyond"].to_numpy()
    adj = holm(p)
    table = table.with_columns(pl.Series("p_holm", adj),
                               pl.Series("called", [bool(a < ALPHA) for a in adj],
                                         dtype=pl.Boolean),
                               pl.lit(family_size(p), dtype=pl.Int64).alias("tested"))
    return table.sort("p_holm", "card_id", nulls_last=True)


def ablate(*, game: str, players: int | None = None, games: Any = 10_000, seed: Any = 1,
           cards: str | None = None, rules_file: str | None = None,
           rule_overrides: tuple[str, ...] = (), strategies: Mapping[str, str] | None = None,
           only: tuple[str, ...] = (), changes: tuple[str, ...] = CHANGES,
           out: str | Path | None = None, threads: Any = None, threshold_pp: float = 2.0,
           backend: Any = None, backend_options: Mapping[str, Any] | None = None,
           progress: bool = False, resume: bool = False) -> AblationResult:
    """Play the baseline and every card change on the same seed and games (any backend);
    write ``ablation.csv`` / ``ablation.json`` into ``out`` and return the result.

    Every configuration is an ordinary run directory in ``out``; after Ctrl-C, SIGTERM or a
    full disk the same call with ``resume=True`` keeps the finished runs and chunks, plays
    the rest and writes the same table (``out/resume.jsonl`` records the settings)."""
    import hashlib

    from sim.core.inputs import parse_count, parse_seed
    from sim.runs import rundir
    from sim.runs.resumable import JOURNAL_NAME, Journal, output_dir, stoppable

    bad = [c for c in changes if c not in CHANGES]
    if bad:
        raise UserError(f"unknown change '{bad[0]}'; choose from {', '.join(CHANGES)}",
                        field="--change")
    games = parse_count(games, field="--games")
    seed = parse_seed(seed)
    game_obj = resolve_game(game)
    cards_path = str(cards or game_obj.default_cards_path())
    variants, base_cards = _variants(cards_path, game, only, changes)
    variants, absent = _in_play(game_obj, variants, players, cards_path, rules_file,
                                rule_overrides, strategies)
    out = output_dir(Path(out) if out is not None else rundir.stamped_path(f"ablation-{game}"),
                     what="card ablation", resume=resume, finished=RESULT_FILE)
    settings = {"game": game, "players": players, "games": games, "seed": seed,
                "cards_sha256": hashlib.sha256(base_cards.text().encode()).hexdigest(),
                "rules_file": rules_file,
                "rule_overrides": list(rule_overrides), "strategies": dict(strategies or {}),
                "only": list(only), "changes": list(changes)}
    with stoppable("card ablation", out, out_option=out), Journal.open(
            out / JOURNAL_NAME, settings, what="card ablation", resume=resume, out=out):
        return _ablate(game, players, games, seed, cards_path, rules_file, rule_overrides,
                       strategies, changes, out, threads, threshold_pp, backend,
                       backend_options, progress, variants, only, absent)


def _in_play(game_obj, variants: list[tuple], players, cards_path, rules_file, rule_overrides,
             strategies) -> tuple[list[tuple], str | None]:
    """The variants of cards some game of the player count deals (the game's
    ``cards_in_play``; PLAI: the numerals of the count, PLAI-C2), and a note naming the
    others, which could change no game (None when every card is in play). All left out
    is refused: there would be nothing to ablate."""
    from sim.core.request import GameRequest

    if game_obj.cards_in_play is None or not variants:
        return variants, None
    config = GameRequest(game=game_obj.name, players=players, cards=cards_path,
                         rules_file=rules_file, rule_overrides=tuple(rule_overrides),
                         strategies=strategies or ()).configure()
    dealt = game_obj.cards_in_play(config)
    absent = {cid: name for cid, name, _, _ in variants if cid not in dealt}
    if not absent:
        return variants, None
    note = (f"not in the deck at {config.players} players, so not ablated: "
            + ", ".join(f"{name} ({cid})" for cid, name in absent.items()))
    kept = [v for v in variants if v[0] not in absent]
    if not kept:
        raise UserError(f"no card to ablate: {note}", field="--card")
    return kept, note


def _ablate(game, players, games, seed, cards_path, rules_file, rule_overrides, strategies,
            changes, out, threads, threshold_pp, backend, backend_options, progress,
            variants, only, absent) -> AblationResult:
    from sim.core.output import writing
    from sim.core.request import GameRequest
    from sim.runs import backends, setup

    game_obj = resolve_game(game)
    request = GameRequest(game=game, players=players, rules_file=rules_file,
                          rule_overrides=tuple(rule_overrides), strategies=strategies or (),
                          debug=False)
    chosen, owned = backends.resolve(backend, backend_options)
    skipped: list[str] = [absent] if absent else []
    played: list[tuple[str, str, str, np.ndarray]] = []
    try:
        nthreads = threads

        def play(cards_file: str, directory: Path):
            return setup.start_or_continue(request.replace(cards=cards_file), games=games,
                                           seed=seed, out=directory, threads=nthreads,
                                           backend=chosen, progress=progress)

        baseline = play(cards_path, out / "baseline")
        players = int(baseline.manifest["players"])
        base, codes = _outcomes(out / "baseline", game_obj, players)
        causes: dict[tuple[str, str], Any] = {}   # (card, change) -> why the all-lose rate moved
        base_causes = _cause_columns(out / "baseline", game_obj)
        for cid, name, change, table in variants:
            slug = variant_directory(cid, change)
            directory = out / slug
            cards_file = out / "cards" / f"{slug}.csv"
            with writing("a changed card file", cards_file):
                cards_file.parent.mkdir(exist_ok=True)
                cards_file.write_text(table.text(), encoding="utf-8")
            try:   # e.g. a value the card file refuses (a failed run is no reason to skip)
                request.replace(cards=str(cards_file)).configure()
            except UserError as exc:
                skipped.append(f"{name} ({cid}) {CHANGE_WORDS[change]}: {exc}")
                continue
            play(str(cards_file), directory)
            played.append((cid, name, change, _outcomes(directory, game_obj, players)[0]))
            causes[(cid, change)] = _loss_causes(base_causes, directory, game_obj)
    finally:
        if owned:
            chosen.close()
    roles = card_roles(game_obj, cards_path, {cid for cid, *_ in played}, players)
    table = paired_table(base, played, codes, threshold_pp).with_columns(
        pl.col("card_id").replace_strict(roles, default=None, return_dtype=pl.Utf8)
        .alias("card_role"))
    table = _with_loss_causes(table, causes, game_obj, codes)
    meta = {"game": game, "players": baseline.manifest["players"], "seed": baseline.manifest["seed"],
            "games": games, "configurations": 1 + len(played), "games_played": games * (1 + len(played)),
            "cards": cards_path, "threshold_pp": threshold_pp, "control": CONTROL,
            "cards_words": cards_words(cards_path, baseline.manifest["cards"]["sha256"],
                                       game_obj.default_cards_path()),
            "pairing": game_obj.pairing(baseline.manifest),
            "changes": list(changes), "skipped": skipped,
            # --card: the ids ablated (a name selects every card of that name); the typical
            # card is one of them
            "named_cards": list(dict.fromkeys(str(cid) for cid, *_ in variants)) if only else None,
            "backend": getattr(chosen, "name", type(chosen).__name__),
            "strategies": baseline.manifest.get("strategies")}
    with writing("the ablation table", out):
        table.write_csv(out / RESULT_FILE)
        (out / META_FILE).write_text(json.dumps(meta, indent=2, default=str) + "\n",
                                     encoding="utf-8")
    return AblationResult(out=out, table=table, games=games, configurations=1 + len(played),
                          skipped=skipped, meta=meta)
