"""The workbench's Starlette application: the page and its JSON endpoints, behind the
guards of guard.py (Host, Origin, the body cap), on the server state of bench.py. A
malformed request is a 400 with a one-line ``error`` and the server goes on serving.

Endpoints (all JSON unless said):
  GET  /                      the page (static/index.html; app.js, app.css beside it)
  GET  /api/state?game=G      cards, rule options, strategies, player counts, caps
  POST /api/validate          check an edit with the CLI's loaders -> {ok, problem}
  POST /api/run               start a comparison -> {id}; one at a time per page
  GET  /api/run/{id}          its progress (polled; a page that stops polling stops it); its
                              verdict's notes say what the verdict is about
  POST /api/run/{id}/stop     stop it, keeping the finished chunks
  POST /api/save              write the edited card / rule file under the start directory
  POST /api/download          the edited card or rule file as an attachment (checked as Save)
  POST /api/report/{id}       {[side]}: the balance report of one side's games of a finished
                              comparison (the edit's unless side is "baseline"; never both
                              pooled) -> {side, url, markdown, answers_json, answers (its
                              answers.json's), examples (the questions that have an example)}
  POST /api/stronger/{id}     {[seconds] or [games]}: whether a finished comparison's changes
                              hold under stronger play, per player count (search on every
                              side of both, as simulate compare) -> {points}
  GET  /report/{id}/{side}/{file}
                              a file of that report (report.html)
  GET  /api/run/{id}/changed?players=P&from=K&to=L
                              every game index whose outcome went from kind K to L
  POST /api/example/{id}      {question, players[, variant, side]}: an example game of that
                              answer of that side's report, from that side's games
                              -> {example, side, viewer}
  GET  /game/{id}/{players}/{game_index}
                              the game viewer (api.viewer): that game, baseline and edit
                              side by side, opened at their first difference (a
                              self-contained HTML page)
"""
from __future__ import annotations

import contextlib
import shutil
import uuid
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from sim import api
from sim.core.errors import UserError
from sim.core.game import resolve_game
from sim.core.inputs import parse_count, parse_seed
from sim.core.output import is_no_space
from sim.core.request import GameRequest
from sim.core.wording import plural
from sim.workbench import compare, inputs
from sim.workbench.bench import (
    DEFAULT_MAX_GAMES, KEEP_COMPARISONS, KEEP_TOTAL, Settings, Workbench,
)
from sim.workbench.guard import MAX_JSON_NUMBER, Guard, brief, error_response, read_json
from sim.workbench.inputs import BadInput

STATIC = Path(__file__).resolve().parent / "static"
DEFAULT_WIDTH_PP = 1.0
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


# ----------------------------------------------------------------------------- helpers
def game_of(body: Mapping[str, Any], bench: Workbench) -> tuple[str, Any]:
    name = body.get("game", bench.settings.game)
    if not isinstance(name, str):
        raise BadInput("'game' must be a game name")
    return name, resolve_game(name)  # UserError for an unknown game


class Edit(NamedTuple):
    """A request's edit, read and checked against the game's baseline."""
    name: str                               # the game's name
    game: Any                               # its description (resolve_game)
    players: list[int]                      # the player counts asked for
    sheet: inputs.CardSheet                 # the edited card table
    rules: inputs.RulesEdit                 # the rule options changed
    strategies: dict[int, dict[str, str]]   # per player count: slot -> spec
    baseline: inputs.CardSheet              # the card table the edit was read against

    def check(self, folder: Path) -> Any:
        """The edit written into ``folder`` as the CLI's files, and checked with its
        loaders (inputs.check_edit)."""
        return inputs.check_edit(self.name, self.players, folder, self.sheet, self.rules,
                                 self.strategies)

    def check_aside(self, work: Path) -> Any:
        """``check`` in a scratch folder under ``work``, removed afterwards."""
        folder = work / "check" / uuid.uuid4().hex
        try:
            return self.check(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def file_problem(self, kind: str, work: Path) -> Any:
        """The problem (inputs.Problem) of the edit's ``kind`` file, "cards" or "rules", or
        None: a problem of the other file is not this one's, so this file is then checked
        again beside the other one at the default (rule options) or baseline (cards)."""
        problem = self.check_aside(work).problem
        if problem is None or problem.part == kind:
            return problem
        alone = (self._replace(rules=inputs.RulesEdit("")) if kind == "cards"
                 else self._replace(sheet=self.baseline))
        return alone.check_aside(work).problem


def edit_of(body: Mapping[str, Any], bench: Workbench) -> Edit:
    """The request's edit (Edit)."""
    name, game = game_of(body, bench)
    players = inputs.players_from_request(body, game)
    baseline = bench.baseline_sheet(name)
    sheet = inputs.sheet_from_request(body, baseline)
    rules = inputs.rules_from_request(body, game)
    strategies = {p: inputs.strategies_from_request(body, game, p, bench.start_dir)
                  for p in players}
    return Edit(name, game, players, sheet, rules, strategies, baseline)


def files_of(body: Mapping[str, Any], bench: Workbench) -> Edit:
    """The request's card and rule edit without its strategies (an Edit): what a download
    needs, checked at the player counts ticked, or at the game's default count when none is."""
    name, game = game_of(body, bench)
    players = (inputs.players_from_request(body, game) if body.get("players")
               else [int(game.default_players)])
    baseline = bench.baseline_sheet(name)
    return Edit(name, game, players, inputs.sheet_from_request(body, baseline),
                inputs.rules_from_request(body, game), {}, baseline)


def handled(func):
    """Route wrapper: BadInput / UserError -> 400 (404 for NotFound) with one line."""
    async def route(request: Request):
        try:
            return await func(request, request.app.state.bench)
        except NotFound as exc:
            return error_response(f"error: {exc}", 404)
        except BadInput as exc:
            return error_response(f"error: {exc}")
        except UserError as exc:
            return error_response(str(exc))
        except Exception as exc:  # noqa: BLE001 - only a full disk is answered here
            if not is_no_space(exc):
                raise
            return error_response("error: no space left on device for the workbench's files; "
                                  "free some space and try again", 507)
    route.__name__ = func.__name__
    return route


# ----------------------------------------------------------------------------- routes
async def page(request: Request) -> Response:
    name = request.path_params.get("name", "index.html")
    files = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
             "app.css": "text/css; charset=utf-8"}
    if name not in files:
        return error_response("not found", 404)
    return Response((STATIC / name).read_bytes(), media_type=files[name],
                    headers={"Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-store",
                             "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"})


@handled
async def state(request: Request, bench: Workbench) -> Response:
    name, game = game_of(dict(request.query_params), bench)
    sheet = bench.baseline_sheet(name)
    side = bench.baseline(name)
    registered = api.strategies(name)
    default_players = (bench.settings.players if name == bench.settings.game and
                       bench.settings.players else int(game.default_players))
    slots = {str(p): list(game.strategy_slots(p)) for p in game.player_counts}
    return JSONResponse({
        "game": name, "title": game.title, "games": list(api.game_modules()),
        "start_dir": str(bench.start_dir),
        "cards": {"columns": sheet.columns, "rows": sheet.rows, "comments": sheet.comments,
                  "file": side.cards or "(the game's default card file)"},
        "rules": inputs.describe_options(game, side.rules_file),
        "rules_file": side.rules_file,
        "strategy_kind": game.strategy_kind,
        "default_strategy": game.default_strategy,
        "strategies": [{"name": s["name"], "summary": s["summary"]} for s in registered],
        "slots": slots, "player_counts": list(game.player_counts),
        "default_players": default_players,
        "max_games": bench.settings.max_games, "default_games": min(bench.settings.max_games,
                                                                   DEFAULT_MAX_GAMES),
        "default_width": DEFAULT_WIDTH_PP, "backend": bench.settings.backend,
        "saved": bench.saved.get(name, {}),
        "idle_seconds": bench.settings.idle_seconds,
    })


@handled
async def validate(request: Request, bench: Workbench) -> Response:
    body = await read_json(request)
    problem = edit_of(body, bench).check_aside(bench.work).problem
    return JSONResponse({"ok": problem is None,
                         "problem": problem.as_json() if problem else None})


def _number(body: Mapping[str, Any], key: str, default: Any) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, str, float)) or \
            (isinstance(value, str) and len(value) > MAX_JSON_NUMBER):
        raise BadInput(f"'{key}' must be a number")
    return parse_count(value, field=key)


@handled
async def run(request: Request, bench: Workbench) -> Response:
    from sim.studies.sequential import parse_width

    body = await read_json(request)
    page_id = body.get("page")
    if not isinstance(page_id, str) or not 8 <= len(page_id) <= 64:
        raise BadInput("'page' must be the page's id (8 to 64 characters)")
    edit = edit_of(body, bench)
    name, players, strategies = edit.name, edit.players, edit.strategies
    max_games = _number(body, "games", min(DEFAULT_MAX_GAMES, bench.settings.max_games))
    if max_games > bench.settings.max_games:
        raise BadInput(f"at most {bench.settings.max_games:,} games per side (the workbench's "
                       f"--max-games), got {max_games:,}")
    chunk = _number(body, "chunk", 0) if body.get("chunk") else None
    seed_value = body.get("seed", 1)   # a number, or its digits (the page's: exact past 2**53)
    if isinstance(seed_value, bool) or not isinstance(seed_value, (int, str)) or \
            (isinstance(seed_value, str) and len(seed_value) > MAX_JSON_NUMBER):
        raise BadInput("'seed' must be a whole number 0 .. 2**63-1")
    seed_value = parse_seed(seed_value)
    width = parse_width(body.get("width", DEFAULT_WIDTH_PP))
    with bench.lock:
        for other in bench.pages.get(page_id, []):
            if bench.comparisons[other].running:
                return error_response("this page already runs a comparison; stop it first", 409)
        ident = uuid.uuid4().hex[:12]
        folder = bench.work / ident
        checked = edit.check(folder / "files")
        if checked.problem is not None:
            return JSONResponse({"error": checked.problem.cli,
                                 "problem": checked.problem.as_json()}, status_code=400)
        baseline = bench.baseline(name)
        plan = compare.plan_from(name, players, seed_value, max_games, width, chunk, baseline,
                                 compare.Side(str(checked.cards_path),
                                              str(checked.rules_path) if checked.rules_path
                                              else None),
                                 strategies, bench.settings.threads)
        comparison = compare.Comparison(ident, plan, folder, bench.backend(),
                                        idle_seconds=bench.settings.idle_seconds,
                                        on_look=bench.after_look)
        comparison.command_info = {
            "strategies": strategies,
            # what the edit side played, to name a saved file only while it holds it
            "played": {kind: path.read_text(encoding="utf-8") if path else None for kind, path
                       in (("cards", checked.cards_path), ("rules", checked.rules_path))},
            "sheet_changed": (edit.sheet.rows != edit.baseline.rows
                              or edit.sheet.columns != edit.baseline.columns),
            "rules": _rules_kind(edit, baseline.rules_file),
            "chunk": plan.chunk if chunk else None}   # shown only when the page set it
        info = comparison.command_info
        info["same_game"] = not info["sheet_changed"] and (
            info["rules"] == "baseline" or (info["rules"] == "defaults"
                                            and not baseline.rules_file))
        bench.comparisons[ident] = comparison
        history = bench.pages.setdefault(page_id, [])
        history.append(ident)
        while len(history) > KEEP_COMPARISONS:  # older comparisons' runs go (bounded disk)
            bench.forget(history[0])
        bench.evict(keep={ident})                # and over every page: count and bytes
        comparison.start()
    return JSONResponse({"id": ident, "looks_planned": comparison.looks_planned,
                         "chunk": plan.chunk, "z": comparison.z})


def _comparison(request: Request, bench: Workbench) -> compare.Comparison:
    ident = request.path_params["ident"]
    comparison = bench.comparisons.get(ident)
    if comparison is None:
        raise NotFound(f"no comparison '{brief(ident, 40)}' (finished ones are kept "
                       f"{KEEP_COMPARISONS} per page, {KEEP_TOTAL} in all)")
    return comparison


class NotFound(BadInput):
    pass


def commands(bench: Workbench, comparison: compare.Comparison) -> dict[str, str]:
    plan, info = comparison.plan, comparison.command_info
    saved = bench.saved.get(plan.game, {})
    base = bench.baseline(plan.game)
    played = info["played"]
    edit_cards = (_saved_as(bench, saved.get("cards"), played["cards"]) or "EDITED-CARDS.csv") \
        if info["sheet_changed"] else (base.cards and _shown(bench, base.cards))
    base_rules = base.rules_file and _shown(bench, base.rules_file)
    edit_rules = {"baseline": base_rules, "defaults": None}.get(info["rules"]) if \
        info["rules"] != "edited" else (_saved_as(bench, saved.get("rules"), played["rules"])
                                        or "EDITED-RULES.yaml")
    flags = list(bench.settings.backend_flags)
    ended = not comparison.running
    games_played = ({p: comparison.played(p) for p in plan.players} if ended else None)
    lines = inputs.command_lines(plan.game, resolve_game(plan.game), plan.players, plan.seed,
                                 plan.max_games, plan.width_pp, info["strategies"], edit_cards,
                                 edit_rules, base.cards and _shown(bench, base.cards),
                                 base_rules, flags, chunk=info["chunk"],
                                 games_played=games_played)
    lines["note"] = (
        "the games the comparison played, no --until-ci: these print the page's numbers"
        if ended else
        "while it runs: the cap, with --until-ci; --until-ci stops on each side's own "
        "rates, not on the paired difference the page decides on, so these need not stop "
        "where the page does (once the comparison ends they name the games it played)")
    return lines


def _rules_kind(edit: Edit, baseline_rules: str | None) -> str:
    """Which rules the edit side plays, for its command line: "baseline" (the form as the
    baseline's rules file filled it), "defaults" (every option at its default) or "edited"."""
    form = inputs.describe_options(edit.game, baseline_rules)
    if form is not None:
        as_baseline = inputs.rules_from_request({"rules": {o["key"]: o["value"] for o in form}},
                                                edit.game)
        if sorted(edit.rules.text.splitlines()) == sorted(as_baseline.text.splitlines()):
            return "baseline" if baseline_rules else "defaults"
    return "edited" if edit.rules.text.strip() else "defaults"


def _saved_as(bench: Workbench, saved: str | None, played: str | None) -> str | None:
    """The name a file was saved under, if it still holds ``played`` (the text the
    comparison played)."""
    if not saved or played is None:
        return None
    try:
        same = (bench.start_dir / saved).read_text(encoding="utf-8") == played
    except OSError:   # moved or deleted since
        return None
    return saved if same else None


def _shown(bench: Workbench, path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(bench.start_dir))
    except ValueError:
        return str(path)


@handled
async def progress(request: Request, bench: Workbench) -> Response:
    comparison = _comparison(request, bench)
    comparison.seen()
    snap = comparison.snapshot()
    snap["commands"] = commands(bench, comparison)
    if snap["verdict"] is not None:
        snap["verdict"]["notes"] = verdict_notes(comparison)
    return JSONResponse(_finite(snap))


def verdict_notes(comparison: compare.Comparison) -> list[str]:
    """What the verdict is about, said before it: the strategies are the players of both
    sides, so no verdict can be read as what a strategy does."""
    info, plan = comparison.command_info, comparison.plan
    notes = []
    if info["same_game"]:
        notes.append("The edit leaves the cards and rule options as the baseline's: both "
                     "sides are the same game, so no game can end otherwise.")
    chosen = {f"{plural(p, 'player')}: " + ", ".join(f"{slot} {spec}" for slot, spec in s.items())
              for p, s in plan.strategies.items() if s}
    if chosen:
        notes.append(f"Both sides played the strategies chosen ({'; '.join(sorted(chosen))}): "
                     "they are the players of the baseline and the edit alike, so this verdict "
                     "is about the card and rule edit under these players, not about what a "
                     "strategy does.")
    return notes


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: None instead."""
    import math

    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


@handled
async def stop(request: Request, bench: Workbench) -> Response:
    comparison = _comparison(request, bench)
    comparison.stop()
    return JSONResponse({"id": comparison.id, "stopping": comparison.running})


@handled
async def save(request: Request, bench: Workbench) -> Response:
    body = await read_json(request)
    edit = edit_of(body, bench)
    targets = {}
    if body.get("cards_name"):
        targets["cards"] = inputs.safe_path(bench.start_dir, body["cards_name"], (".csv",))
    if body.get("rules_name"):
        targets["rules"] = inputs.safe_path(bench.start_dir, body["rules_name"],
                                            (".yaml", ".yml"))
    if not targets:
        raise BadInput("give 'cards_name' and/or 'rules_name'")
    overwrite = body.get("overwrite") is True
    for kind, path in targets.items():
        if path.exists() and not overwrite:
            raise BadInput(f"{_shown(bench, str(path))} exists; tick 'overwrite' to replace it")
        if not path.parent.is_dir():
            raise BadInput(f"no folder {_shown(bench, str(path.parent))} under "
                           f"{bench.start_dir}")
    checked = edit.check_aside(bench.work)
    if checked.problem is not None:  # a file the CLI would refuse is not saved
        return JSONResponse({"error": checked.problem.cli, "problem": checked.problem.as_json()},
                            status_code=400)
    written = {}
    if "cards" in targets:
        targets["cards"].write_text(edit.sheet.text(), encoding="utf-8")
        written["cards"] = _shown(bench, str(targets["cards"]))
    if "rules" in targets:
        targets["rules"].write_text(edit.rules.file_text(), encoding="utf-8")
        written["rules"] = _shown(bench, str(targets["rules"]))
    bench.saved.setdefault(edit.name, {}).update(written)
    return JSONResponse({"written": written, "start_dir": str(bench.start_dir)})


@handled
async def download(request: Request, bench: Workbench) -> Response:
    body = await read_json(request)
    kind = body.get("kind")
    if kind not in ("cards", "rules"):
        raise BadInput("'kind' must be 'cards' or 'rules'")
    edit = files_of(body, bench)
    problem = edit.file_problem(kind, bench.work)
    if problem is not None:  # as Save: a file the CLI would refuse is not given
        return JSONResponse({"error": problem.cli, "problem": problem.as_json()},
                            status_code=400)
    if kind == "cards":
        text, filename, media = edit.sheet.text(), inputs.CARDS_NAME, "text/csv"
    else:
        text = edit.rules.file_text()
        filename, media = inputs.RULES_NAME, "application/yaml"
    return Response(text, media_type=f"{media}; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


SIDES = ("edit", "baseline")   # the sides a report or an example is of; the first by default
SIDE_WORDS = {"edit": "the edited game", "baseline": "the baseline"}


def _side_of(value: Any) -> str:
    if value is None:
        return SIDES[0]
    if value not in SIDES:
        raise BadInput("'side' must be 'edit' or 'baseline'")
    return value


def _report_dir(comparison: compare.Comparison, side: str) -> Path:
    return comparison.home / "report" / side


@handled
async def report(request: Request, bench: Workbench) -> Response:
    comparison = _comparison(request, bench)
    side = _side_of((await read_json(request)).get("side"))
    if comparison.running:
        raise BadInput("the comparison is still running; stop it or wait for its verdict")
    if comparison.looks == 0:
        raise BadInput("the comparison played no chunk; nothing to report")
    out = _report_dir(comparison, side)
    # written in a worker thread: the server goes on answering other requests (every
    # page's polls) while the page awaits this one
    await run_in_threadpool(_write_side_report, comparison, side, out)
    from reports.answers_file import read_answers
    from sim.studies.examples import example_questions

    base = f"/report/{comparison.id}/{side}"
    return JSONResponse(_finite({
        "side": side,
        "url": f"{base}/report.html",
        "markdown": f"{base}/report.md",
        "answers_json": f"{base}/answers.json",
        "answers": read_answers(out)["answers"],
        "examples": list(example_questions(resolve_game(comparison.plan.game)))}))


def _write_side_report(comparison: compare.Comparison, side: str, out: Path) -> None:
    """The balance report of one side's games into ``out``, unless written already (one
    writer at a time per comparison: a second request waits and finds it written)."""
    with comparison.report_lock:
        if (out / "report.html").exists():
            return
        # one side's games only: a report of both would pool the baseline and the edit
        # into answers that are neither's
        dirs = [comparison.run_dirs[p][side] for p in comparison.plan.players]
        # the page waits for it: no stronger-play check (minutes of search per player
        # count; `simulate report` on these run directories adds it). Written directly,
        # without api.report's journal and signal handlers: a request inside the server
        # neither resumes nor stops like a command.
        from reports.build import write_report

        write_report([str(d) for d in dirs], str(out), stronger_play=0,
                     about=f"The games of {SIDE_WORDS[side]} ({side} side) of a workbench "
                           "comparison, not the other side's.")


STRONGER_SECONDS = 60.0    # the page's default: search games per player count
MAX_STRONGER_SECONDS = 3600.0


def _optional_number(value: Any, name: str, top: float, whole: bool = False) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not \
            0 < value <= top or (whole and value != int(value)):
        kind = "a whole number" if whole else "a number"
        raise BadInput(f"'{name}' must be {kind} above 0 and at most {top:g}")
    return int(value) if whole else float(value)


@handled
async def stronger(request: Request, bench: Workbench) -> Response:
    comparison = _comparison(request, bench)
    body = await read_json(request)
    seconds = _optional_number(body.get("seconds"), "seconds", MAX_STRONGER_SECONDS)
    games = _optional_number(body.get("games"), "games", 1e6, whole=True)
    if comparison.running:
        raise BadInput("the comparison is still running; stop it or wait for its verdict")
    if comparison.looks == 0:
        raise BadInput("the comparison played no chunk; nothing to check")
    found = await run_in_threadpool(comparison.check_stronger,
                                    STRONGER_SECONDS if seconds is None else seconds, games)
    return JSONResponse(_finite({"points": found}))


async def report_file(request: Request) -> Response:
    bench = request.app.state.bench
    comparison = bench.comparisons.get(request.path_params["ident"])
    name, side = request.path_params["name"], request.path_params["side"]
    if comparison is None or side not in SIDES or \
            name not in ("report.html", "report.md", "answers.json"):
        return error_response("not found", 404)
    path = _report_dir(comparison, side) / name
    if not path.exists():
        return error_response("no report yet; make it first", 404)
    return FileResponse(path, headers={"Cache-Control": "no-store"})


def _players_of(value: Any, comparison: compare.Comparison) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or \
            not str(value).isdigit() or len(str(value)) > 3:
        raise BadInput("'players' must be a player count of the comparison")
    players = int(value)
    if players not in comparison.plan.players:
        raise BadInput(f"this comparison played "
                       f"{', '.join(map(str, comparison.plan.players))} players, not {players}")
    return players


@handled
async def changed(request: Request, bench: Workbench) -> Response:
    comparison = _comparison(request, bench)
    query = request.query_params
    players = _players_of(query.get("players", ""), comparison)
    before, after = query.get("from"), query.get("to")
    if not before or not after or len(before) > 200 or len(after) > 200:
        raise BadInput("give the kinds of change as 'from' and 'to'")
    games = comparison.changed_games(players, before, after)
    return JSONResponse({"players": players, "from": before, "to": after,
                         "count": len(games), "games": games})


@handled
async def example(request: Request, bench: Workbench) -> Response:
    from starlette.concurrency import run_in_threadpool

    from sim.studies.examples import find_example

    comparison = _comparison(request, bench)
    body = await read_json(request)
    players = _players_of(body.get("players"), comparison)
    question, variant = body.get("question"), body.get("variant")
    side = _side_of(body.get("side"))
    if not isinstance(question, str) or len(question) > 100:
        raise BadInput("'question' must be an answer's key (answers.json)")
    path = _report_dir(comparison, side) / "answers.json"
    if not path.exists():
        raise BadInput(f"make the balance report of the {side} side first: its answers are "
                       "what examples show")
    from reports.answers_file import read_answers

    answer = next((a for a in read_answers(path)["answers"] if a["question"] == question
                   and a.get("players") == players
                   and (variant is None or a.get("variant") == variant)), None)
    if answer is None:
        raise NotFound(f"the report has no answer '{brief(question, 60)}' at {players} "
                       "players")
    key = (side, question, players, answer.get("variant"))
    found = comparison.examples.get(key)
    if found is None:
        found = await run_in_threadpool(find_example,
                                        comparison.run_dirs[players][side], answer)
        if found is None:
            raise NotFound(f"the game shows no example game of '{question}'")
        comparison.examples[key] = found
    viewer = (None if found.game_index is None else
              f"/game/{comparison.id}/{players}/{found.game_index}")
    return JSONResponse(_finite({"example": found.as_json(), "side": side,
                                 "viewer": viewer}))


# The viewer page carries its script and style inline and loads nothing: its policy says so.
VIEWER_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
              "base-uri 'none'; form-action 'none'; frame-ancestors 'self'")


@handled
async def game_viewer(request: Request, bench: Workbench) -> Response:
    """The game viewer (reports/viewer.py) of one game of a comparison: its baseline and
    its edited side on the same seed and game index, opened at their first difference."""
    comparison = _comparison(request, bench)
    plan = comparison.plan
    players_text, index_text = request.path_params["players"], request.path_params["index"]
    if not (players_text.isdigit() and index_text.isdigit() and len(index_text) < 19):
        raise BadInput("the address is /game/ID/PLAYERS/GAME-INDEX, whole numbers")
    players, index = int(players_text), int(index_text)
    if players not in plan.players:
        raise BadInput(f"this comparison played {', '.join(map(str, plan.players))} players, "
                       f"not {players}")
    games_played = comparison.played(players)
    if index >= games_played:
        raise BadInput(f"game index {index} is beyond the {games_played:,} games this "
                       f"comparison played at {players} players (of at most "
                       f"{plan.max_games:,})")
    request_of = {"game": plan.game, "players": players,
                  "strategies": plan.strategies.get(players) or None}
    base = GameRequest(cards=plan.baseline.cards, rules_file=plan.baseline.rules_file,
                       **request_of)
    edit = GameRequest(cards=plan.edit.cards, rules_file=plan.edit.rules_file, **request_of)
    page = await run_in_threadpool(api.viewer, base, seed=plan.seed, game_index=index,
                                   compare=edit)
    return HTMLResponse(page, headers={"Content-Security-Policy": VIEWER_CSP,
                                       "Cache-Control": "no-store",
                                       "X-Content-Type-Options": "nosniff",
                                       "Referrer-Policy": "no-referrer"})


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such path 404, wrong method 405...) as JSON lines."""
    status = int(getattr(exc, "status_code", 400))
    words = {404: f"not found: {brief(request.url.path, 200)}",
             405: f"method {request.method} is not allowed on {brief(request.url.path, 200)}"}
    return error_response(words.get(status, str(getattr(exc, "detail", "")) or "bad request"),
                          status, getattr(exc, "headers", None))


def create_app(settings: Settings) -> Starlette:
    """The application (``app.state.bench`` holds the Workbench); wrapped in Guard."""
    bench = Workbench(settings)
    routes = [
        Route("/", page, methods=["GET"]),
        Route("/static/{name}", page, methods=["GET"]),
        Route("/api/state", state, methods=["GET"]),
        Route("/api/validate", validate, methods=["POST"]),
        Route("/api/run", run, methods=["POST"]),
        Route("/api/run/{ident}", progress, methods=["GET"]),
        Route("/api/run/{ident}/stop", stop, methods=["POST"]),
        Route("/api/save", save, methods=["POST"]),
        Route("/api/download", download, methods=["POST"]),
        Route("/api/report/{ident}", report, methods=["POST"]),
        Route("/api/stronger/{ident}", stronger, methods=["POST"]),
        Route("/report/{ident}/{side}/{name}", report_file, methods=["GET"]),
        Route("/api/run/{ident}/changed", changed, methods=["GET"]),
        Route("/api/example/{ident}", example, methods=["POST"]),
        Route("/game/{ident}/{players}/{index}", game_viewer, methods=["GET"]),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        bench.close()

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error},
                    lifespan=lifespan)
    app.state.bench = bench
    app.add_middleware(Guard, allowed_hosts=settings.allowed_hosts)
    return app
