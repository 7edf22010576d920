"""What the matchup schemes of every game share: the --strategies list, the checks before
the first game, playing the blocks (in this process or on a cluster backend), the output
directory and the files written into it (manifest.json, pairs.csv, matrix.csv, matrix.txt)."""
from __future__ import annotations

import csv
import datetime as _dt
import json
from pathlib import Path
from typing import Any, Callable, Sequence

import sim
from sim.core.errors import UserError


def split_specs(text: str | Sequence[str]) -> list[str]:
    """``"random,greedy,builder:threshold=12,cards=2"`` -> the specs, where an item with
    ``=`` but no ``:`` continues the parameters of the spec before it."""
    items = text.split(",") if isinstance(text, str) else list(text)
    specs: list[str] = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        if "=" in item and ":" not in item and specs:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def canonical_spec(spec: str, game_pkg: str) -> str:
    """Validate a spec (unknown names/parameters list the valid ones) and write it in one form."""
    from sim.core.strategy import parse_spec

    strategy, params = parse_spec(spec, game_pkg, field_name="--strategies")
    # a number in its short form; a name (search:base=@FILE) as given
    return strategy.name + ("".join(f"{':' if i == 0 else ','}{k}="
                                    + (v if isinstance(v, str) else f"{v:g}")
                                    for i, (k, v) in enumerate(params.items())))


def strategy_names(strategies: str | Sequence[str], game_pkg: str, example: str) -> list[str]:
    """The --strategies list, validated and canonical; empty or repeated lists are errors."""
    names = [canonical_spec(s, game_pkg) for s in split_specs(strategies)]
    if not names:
        raise UserError(f"give the strategies to match, e.g. {example} (one alone plays "
                        "itself)", field="--strategies")
    if len(set(names)) != len(names):
        raise UserError(f"a strategy is listed twice: {', '.join(names)}", field="--strategies")
    return names


def prepare(game_obj: Any, strategies: str | Sequence[str], request: Any, execution: Any,
            players: int, example: str, resume: bool = False
            ) -> tuple[list[str], int, int, Path, dict[str, str]]:
    """What every scheme checks before the first game, a bad rule or strategy file must
    not fail half way: (strategy names, seed, threads, the run directory: new and empty,
    or with ``resume`` the one a stopped matchups left, resumable.output_dir's rules, and
    each strategy's strategy_fingerprints)."""
    from sim.core.inputs import parse_seed, parse_threads
    from sim.runs.resumable import output_dir
    from sim.runs.rundir import stamped_path

    threads = parse_threads(execution.threads)
    seed = parse_seed(execution.seed)
    names = strategy_names(strategies, game_obj.strategy_package, example)
    request.replace(players=players, strategies=None).configure()
    fingerprints = strategy_fingerprints(game_obj, request.replace(players=players), names)
    if resume and execution.out is None:
        raise UserError("--resume continues the matchups in --out DIR; give it", field="--out")
    out = execution.out if execution.out is not None else stamped_path(
        f"matchups-{game_obj.name}-{players}p-seed{seed}")
    return names, seed, threads, output_dir(out, what="matchups", resume=resume,
                                            finished="matrix.csv"), fingerprints


def strategy_fingerprints(game_obj: Any, request: Any, names: list[str]) -> dict[str, str]:
    """Each strategy configured on every seat (a bad strategy file fails here, before any
    game): name -> the SHA-256 of the weights it plays, which an edited file changes."""
    slots = game_obj.strategy_slots(request.players)
    return {name: request.replace(strategies={slot: name for slot in slots}).configure()
            .manifest().get("strategy_weights_sha256") for name in names}


def journal_settings(game_obj: Any, request: Any, fingerprints: dict[str, str], games: int,
                     seed: int) -> dict[str, Any]:
    """What decides a matchups' counts, as its journal records them (a continued one must
    match): the game, players, games, seed, strategies with the weights they play, and
    the card and rules files by content."""
    from sim.runs.resumable import file_identity

    return {"game": game_obj.name, "players": request.players, "games": games, "seed": seed,
            "strategies": fingerprints,
            "cards": file_identity(request.cards),
            "rules_file": file_identity(request.rules_file),
            "rule_overrides": list(request.rule_overrides), "debug": request.debug}


def play_journaled(game_obj: Any, request: Any, blocks: Sequence[tuple],
                   pairs: list[dict[str, Any]], run_dir: Path, fingerprints: dict[str, str],
                   games: int, resume: bool, finish: Callable[[float], Any],
                   **play_args: Any) -> Any:
    """Play the blocks as a long command, add each block's counts to its row of ``pairs``
    and return ``finish(wall seconds)``, which writes the files. Every finished block's
    counts go to RUN_DIR/resume.jsonl (removed once the files are written), so Ctrl-C,
    SIGTERM or a full disk keep them and ``resume`` plays only the blocks left, to the same
    counts."""
    import time

    from sim.runs.resumable import JOURNAL_NAME, Journal, stoppable

    settings = journal_settings(game_obj, request, fingerprints, games, play_args["seed"])
    began = time.perf_counter()
    with stoppable("matchups", run_dir, out_option=run_dir), Journal.open(
            run_dir / JOURNAL_NAME, settings, what="matchups", resume=resume,
            out=run_dir) as journal:
        counts = play_blocks(game_obj, request, blocks, journal=journal, **play_args)
        for row, totals in zip(pairs, counts):
            row.update(totals)
        result = finish(time.perf_counter() - began)
        journal.remove()   # the files are written: nothing left to continue
        return result


def play_blocks(game_obj: Any, request: Any, blocks: Sequence[tuple], *, seed: int,
                threads: int, backend: Any, play: Callable, count: Callable,
                chunk: int, journal: Any = None, progress: bool = False
                ) -> list[dict[str, int]]:
    """The outcome counts of every block (slots, extra rule overrides, first game index,
    games): ``count(games, block index)`` of each ``chunk``-sized piece, summed. In this process
    (``backend`` None or in-process) with ``play(config, seed, start, count, threads)``
    (the game's raw results); on a cluster backend as chunk tasks whose tables come back
    (``sim.runs.tables``). Integer counts of the same games: the same on every backend.
    ``journal`` (a resumable.Journal): blocks it holds are answered from it, and each
    block is recorded there once all its pieces are counted. ``progress``: a bar of the
    games on stderr (a terminal only), the journal's blocks counted as played."""
    import tempfile

    from sim.core.progress import bar_context, progress_bar
    from sim.runs.resumable import step_key

    totals: list[dict[str, int]] = [{} for _ in blocks]
    keys = [step_key("block", sorted(dict(slots).items()), list(overrides), start, games)
            for slots, overrides, start, games in blocks]
    done = {i for i, key in enumerate(keys) if journal is not None and key in journal}
    for index in done:
        totals[index] = {name: int(value) for name, value in journal.get(keys[index]).items()}

    def pieces(games: int):
        return [(lo, min(chunk, games - lo)) for lo in range(0, games, chunk)]

    left = {i: len(pieces(blocks[i][3])) for i in range(len(blocks)) if i not in done}
    bar = progress_bar(progress, sum(block[3] for block in blocks), "matchups",
                       done=sum(blocks[i][3] for i in done))

    def add(index: int, counts: dict[str, int], games: int) -> None:
        for key, value in counts.items():
            totals[index][key] = totals[index].get(key, 0) + int(value)
        left[index] -= 1
        if left[index] == 0 and journal is not None:
            journal.record(keys[index], totals[index])
        if bar is not None:
            bar.update(games)

    with bar_context(bar):
        if backend is None or backend.in_process:
            for index, (slots, overrides, start, games) in enumerate(blocks):
                if index in done:
                    continue
                config = game_obj.configure(
                    players=request.players, strategies=dict(slots), cards=request.cards,
                    rules_file=request.rules_file,
                    rule_overrides=request.rule_overrides + tuple(overrides),
                    debug=request.debug)
                for lo, n in pieces(games):
                    add(index, count(play(config, seed, start + lo, n, threads), index), n)
            return totals

        from sim.runs.backends import ConfigRequest
        from sim.runs.tables import chunk_tables

        items = []
        for index, (slots, overrides, start, games) in enumerate(blocks):
            if index in done:
                continue
            config_request = ConfigRequest.of(request.replace(
                strategies=dict(slots),
                rule_overrides=request.rule_overrides + tuple(overrides)))
            items += [(config_request, seed, start + lo, n, index) for lo, n in pieces(games)]
        with tempfile.TemporaryDirectory(prefix="cardsim-matchups-") as scratch:
            for index, table in chunk_tables(backend, items, scratch=scratch):
                add(index, count(table, index), table.height)
    return totals


def write_csv(path: Path, columns: Sequence[str], rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        writer.writerows(rows)


def inputs_manifest(game_obj: Any, request: Any, names: list[str], seed: int,
                    threads: int) -> dict[str, Any]:
    """The manifest keys that say what the matchups played: the game, players, seed,
    strategies, the card file (its absolute path, or None for the default, and its
    SHA-256), the rules, debug and threads."""
    import os

    from sim.core.csvfile import file_sha256

    cards, rules_file = request.cards, request.rules_file
    return {"kind": "matchups", "game": game_obj.name, "players": request.players,
            "seed": seed, "strategies": names, "threads": threads,
            "rule_overrides": list(request.rule_overrides),
            "rules_file": rules_file and os.path.abspath(rules_file),
            "cards": cards and os.path.abspath(cards),
            "cards_sha256": file_sha256(cards or game_obj.default_cards_path()),
            "debug": request.debug}


def common_manifest(*, wall: float, command_line: str | None) -> dict[str, Any]:
    """The manifest keys every matchup run ends with."""
    return {"wall_seconds": round(wall, 3), "package_version": sim.__version__,
            "source_hash": sim.source_hash(), "command_line": command_line,
            "finished": _dt.datetime.now().isoformat(timespec="seconds")}


def write_outputs(result: Any, pair_columns: Sequence[str], matrix_columns: Sequence[str]) -> None:
    """pairs.csv, matrix.csv, matrix.txt and manifest.json of a matchup result (it has
    run_dir, pairs, matrix, manifest and table())."""
    run_dir = Path(result.run_dir)
    write_csv(run_dir / "pairs.csv", pair_columns, result.pairs)
    write_csv(run_dir / "matrix.csv", matrix_columns, result.matrix)
    (run_dir / "matrix.txt").write_text(result.table() + "\n", encoding="utf-8")
    (run_dir / "manifest.json").write_text(json.dumps(result.manifest, indent=2) + "\n",
                                           encoding="utf-8")
