"""Build a balance report from run directories: ``write_report`` is the API the CLI calls."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

import polars as pl

from reports.load import load_runs
from reports.figures import small_multiples
from reports.plots import to_png
from reports.registry import Context, Finding, select_metrics
from reports.render import (Page, Section, answer_rows, render_html, render_markdown,
                            strategies_used, strategy_warnings)
from sim.core.errors import UserError
from sim.core.game import resolve_game
from sim.core.wording import plural


def _duplicate_groups(rs) -> dict[tuple[int, str, str], int]:
    """(players, compensation, pairing) -> the player count those games are exactly like
    (the run manifest's ``plays_like_players``), when the report also holds that player
    count with the same pairing."""
    present = {(run.players, run.pairing) for run in rs.runs}
    out = {}
    for run in rs.runs:
        like = run.manifest.get("plays_like_players")
        if like and (int(like), run.pairing) in present:
            out[(run.players, run.variant, run.pairing)] = int(like)
    return out


def _repeated_counts(rs, duplicates: dict) -> set[tuple[int, str]]:
    """(players, compensation) whose every run repeats another player count."""
    runs = {}
    for run in rs.runs:
        runs.setdefault((run.players, run.variant), []).append(run.pairing)
    return {key for key, pairings in runs.items()
            if all((*key, pairing) in duplicates for pairing in pairings)}


def _group_key(group: Mapping[str, Any] | None) -> tuple[Any, Any]:
    group = group or {}
    return group.get("players"), group.get("variant")


def _same_games(rs) -> list[tuple[int, str, str, int, str]]:
    """(players, variant, variant, games, pairing) for two runs of one player count, pairing and seed
    whose variants (Peer-to-Peer's compensation modes) ended every game the same way, game
    for game: what differs between them never changed a game under these strategies."""
    columns = ["game_index", *resolve_game(rs.game).headline_columns]
    if not set(columns) <= set(rs.columns):   # not the game's table: nothing to compare
        return []
    prints = {row["run"]: (row["print"], row["games"]) for row in rs.games.select(
        "run", pl.struct(columns).hash(seed=0).alias("h")).group_by("run").agg(
        pl.col("h").sum().alias("print"), pl.len().alias("games")).collect().iter_rows(
        named=True)}
    found = []
    for i, a in enumerate(rs.runs):
        for j in range(i + 1, len(rs.runs)):
            b = rs.runs[j]
            if ((a.players, a.pairing, a.manifest.get("seed")) == (b.players, b.pairing,
                                                                   b.manifest.get("seed"))
                    and a.variant != b.variant and prints.get(i) == prints.get(j)):
                found.append((a.players, a.variant, b.variant, prints[i][1], a.pairing))
    return found


def _without(table: pl.DataFrame, duplicates: dict) -> pl.DataFrame:
    """The table without the rows of groups that repeat another player count."""
    if not duplicates or not {"players", "variant", "pairing"} <= set(table.columns):
        return table
    keep = pl.lit(True)
    for players, mode, pairing in duplicates:
        keep = keep & ~((pl.col("players") == players) & (pl.col("variant") == mode)
                        & (pl.col("pairing") == pairing))
    return table.filter(keep)


def write_report(run_dirs: list[str], out_dir: str, threshold_pp: float = 2.0,
                 allow_mixed: bool = False, extra: Mapping[str, Any] | None = None,
                 replay_games: int | None = None, stronger_play: float | None = None,
                 stronger_play_games: int | None = None, journal=None,
                 about: str | None = None, progress: bool = False, announce=None) -> dict:
    """Write ``report.html``, ``report.md``, one ``<metric>.csv`` per metric and
    ``plots/<metric>.png`` into ``out_dir``.

    Raises :class:`sim.core.errors.UserError` for unreadable runs, runs of different games, and
    (unless ``allow_mixed``) runs whose card file sha256 or rule options differ in anything
    but ``odd_team_compensation`` and ``players``.

    Returns a dict: ``html``, ``markdown`` (paths), ``tables`` {metric: csv path},
    ``plots`` {metric: png path}, ``findings`` [{metric, level, text}], ``imbalances``
    (count), ``skipped`` {metric: reason}, ``runs``, ``games``, ``mixed`` [differences],
    ``threshold_pp``, ``answers`` [{question, where, answer, verdict, estimate, lo, hi,
    section}] (the answers-first table) and ``extra`` [section names].

    Every answer is explained and checked: ``answers.json`` beside report.html lists them
    (reports.answers_file). An answer whose interval excludes its even point is explained
    by counterfactual replays (reports.attribution: ``replay_games`` per swap, default
    about the runs' own time; 0 turns them off); every answer is recomputed under stronger
    play (reports.stronger: ``stronger_play`` seconds per player count, default 300 or the
    CARDSIM_STRONGER_PLAY environment variable, 0 off; or ``stronger_play_games`` games).
    ``journal`` (a sim.runs.resumable.Journal) keeps their finished blocks of games, so a
    stopped report continues where it stopped (``simulate report ... --resume``).

    ``extra`` names optional sections and their inputs (reports.sections), e.g.
    ``{"ablation": "runs/ablation-3p", "skill": "runs/skill-4p"}``; a new section plugs in
    the same way.

    ``about`` is a sentence said under the title (what the runs are, in the caller's words).
    ``progress`` draws a bar on stderr while the replays and the search games play (only on
    a terminal).

    Memory: the games are a lazy scan of the runs' parquet parts, aggregated metric by
    metric on polars' streaming engine, so the peak does not grow with the number of games.
    """
    try:
        threshold_pp = float(threshold_pp)
    except (TypeError, ValueError):
        raise UserError(f"threshold must be a number, got {threshold_pp!r}", field="threshold_pp") from None
    if not math.isfinite(threshold_pp) or threshold_pp < 0:
        raise UserError(f"threshold must be a non-negative number of percentage points, got {threshold_pp}",
                        field="threshold_pp")
    rs = load_runs(list(run_dirs) if not isinstance(run_dirs, str) else [run_dirs], allow_mixed=allow_mixed)
    game = resolve_game(rs.game)
    if game.card_fights is not None:  # per-card fight counts of old runs, from replays
        from reports.card_fights import attach_card_fights

        attach_card_fights(rs)
    ctx = Context(game=rs.game, threshold_pp=threshold_pp, card_ids=rs.card_ids,
                  card_names=rs.card_names)
    metrics, skipped = select_metrics(rs.game, rs.columns)

    duplicates = _duplicate_groups(rs)
    same_games = _same_games(rs)
    # the second of two modes that ended every game alike repeats the first's rows: its
    # findings are left out (said once below), so an edge is not called twice for it
    repeats = {**duplicates, **{(p, second, pairing): p
                                for p, _, second, _, pairing in same_games}}
    out = Path(out_dir)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    sections: list[Section] = []
    tables: dict[str, str] = {}
    plots: dict[str, str] = {}
    # per-card fight columns (PLAI: 4 per card) are most of a table; metrics that do not
    # ask for them get a zero-copy selection without them, so their filters stay small.
    stems = game.card_fights.fields if game.card_fights is not None else ()
    fight_columns = f"^({'|'.join(stems)})_\\d+$"
    slim = rs.games.select(pl.exclude(fight_columns)) if stems and any(
        c.startswith(f"{stems[0]}_") for c in rs.columns) else rs.games
    for metric in metrics:
        games = (rs.games if any(r.startswith(stem) for r in metric.requires for stem in stems)
                 else slim)
        table = metric.compute(games, ctx)
        csv_path = out / f"{metric.name}.csv"
        table.write_csv(csv_path)
        tables[metric.name] = str(csv_path)
        findings = metric.findings(_without(table, repeats), ctx) if metric.findings else []
        png = plot_name = None
        if metric.plot is not None:
            fig = metric.plot(table, games, ctx)
            if fig is not None:
                png = to_png(fig)
                plot_name = f"plots/{metric.name}.png"
                (out / plot_name).write_bytes(png)
                plots[metric.name] = str(out / plot_name)
        display = metric.display(table, ctx) if metric.display else table
        answers = metric.answers(_without(table, duplicates), ctx) if metric.answers else []
        sections.append(Section(metric, table, display, findings, png, csv_path.name, plot_name,
                                answers))

    from reports import ablation, curves, skill_section, why_lose  # noqa: F401  (they register their sections)
    from reports import sections as optional

    extras = []
    for name, path in (extra or {}).items():
        if path is None:
            continue
        section = optional.builder(name)(path, rs, ctx)
        if section is not None:
            extras.append(section)
    # the sections below read every run of a player count together (no pairing): their
    # answers for a count that repeats another are left out, as the metrics' rows are
    repeated = _repeated_counts(rs, duplicates)
    for build in optional.always():
        section = build(None, rs, ctx)
        if section is not None:
            section.answers = [a for a in section.answers if _group_key(a.group) not in repeated]
            extras.append(section)
    extras.sort(key=lambda x: x.order)
    for section in extras:
        if section.table is not None:
            csv_path = out / f"{section.name}.csv"
            section.table.write_csv(csv_path)
            tables[section.name] = str(csv_path)
        if section.png is not None:
            (out / "plots" / f"{section.name}.png").write_bytes(section.png)
            plots[section.name] = str(out / "plots" / f"{section.name}.png")
    answers = why_lose.lend_reasons(answer_rows(sections, extras), rs.runs[0].game.why_lose)
    from reports import attribution, stronger

    answers, explained = attribution.explain_answers(answers, rs, replay_games,
                                                     journal=journal, progress=progress)
    answers, checked = stronger.check_answers(answers, rs, ctx, stronger_play,
                                              stronger_play_games, journal=journal,
                                              progress=progress, announce=announce)
    for section in (explained, checked):
        if section is not None:
            extras.append(section)
            if section.table is not None:
                csv_path = out / f"{section.name}.csv"
                section.table.write_csv(csv_path)
                tables[section.name] = str(csv_path)
    extras.sort(key=lambda x: x.order)
    from reports.answers_file import write_answers

    answers_json = write_answers(out / "answers.json", answers, rs, ctx)
    panel = small_multiples([a for a, _ in answers])
    if panel is not None:
        (out / "plots" / "answers.png").write_bytes(panel)
        plots["answers"] = str(out / "plots" / "answers.png")

    if duplicates and sections:  # said once, instead of repeating the rows as findings
        sections[0].findings.insert(0, Finding(sections[0].metric.name, "info", " ".join(
            f"{players} players (odd_team_compensation={mode}) play exactly like {like}: the "
            f"same rules once the per-player-count options are resolved, and the same seats "
            f"(team B's extra seat is dealt like a player's), so their rows repeat the "
            f"{like}-player rows and are not listed again as findings."
            for players, mode, like in sorted({(p, m, like) for (p, m, _), like in duplicates.items()}))))
    if sections:
        for players, first, second, games, _ in same_games:
            sections[0].findings.insert(0, Finding(sections[0].metric.name, "info", (
                f"{players} players under {first} and under {second} ended every one of their "
                f"{games:,} games the same way, game for game: with these strategies what "
                "differs between the two never changed a game, so their rows repeat each "
                f"other and only those under {first} are listed as findings.")))
    html_path, md_path = out / "report.html", out / "report.md"
    page = Page(answers=answers, extras=extras, panel=panel,
                warnings=strategy_warnings(rs, extras), about=about)
    html_path.write_text(render_html(rs, ctx, sections, skipped, page), encoding="utf-8")
    md_path.write_text(render_markdown(rs, ctx, sections, skipped, page), encoding="utf-8")
    all_findings = [f for s in sections for f in s.findings] + [f for x in extras for f in x.findings]
    result: dict[str, Any] = {
        "html": str(html_path),
        "markdown": str(md_path),
        "answers_json": str(answers_json),
        "tables": tables,
        "plots": plots,
        "findings": [{"metric": f.metric, "level": f.level, "text": f.text} for f in all_findings],
        "imbalances": sum(1 for f in all_findings if f.level == "imbalance"),
        "skipped": dict(skipped),
        "runs": len(rs.runs),
        "games": rs.total_games,
        "mixed": list(rs.mixed),
        "threshold_pp": threshold_pp,
        "strategies": [f"{pairing} ({plural(players, 'player')})"
                       for pairing, players in strategies_used(rs)],
        "answers": [{"question": a.question, "where": a.where, "answer": a.answer,
                     "verdict": a.verdict, "estimate": a.estimate, "lo": a.lo, "hi": a.hi,
                     "section": anchor, "key": a.key,
                     "causes": list(a.causes), "stronger_play": a.stronger}
                    for a, anchor in answers],
        "extra": [x.name for x in extras],
    }
    return result
