"""The sweep report reads each point's run block by block (reports.sweep.RunGames) and
gives the numbers of the in-memory arrays (load_games) it replaced: counts, rates and
Wilson intervals exactly, means and delta-method intervals to 1e-12 relative (the same
sums in another order). Fixed synthetic points: Peer-to-Peer (winner, rounds) and PLAI
(outcome, seats, turns), each run in several parquet parts, read in blocks smaller than a
part so that blocks and parts do not line up."""
import polars as pl
import pytest

from reports import sweep
from reports.synthetic import plai_part, synthetic_part
from table_checks import assert_same_table


def _run(path, frames):
    (path / "games").mkdir(parents=True)
    for k, f in enumerate(frames):
        f.write_parquet(path / "games" / f"part-{k:05d}.parquet")
    return path


def _points(tmp_path, make, players, cuts=(0, 1700, 4100, 6000)):
    points = []
    for i, seed in enumerate((1, 2, 3)):
        frames = [make(players, b - a, seed, a) for a, b in zip(cuts, cuts[1:])]
        points.append({"name": f"v{i}", "players": players, "values": {"value": i},
                       "run_dir": _run(tmp_path / f"v{i}", frames), "baseline": "v0"})
    return points


@pytest.mark.parametrize("game", ["peer-to-peer", "plai"])
def test_streamed_sweep_tables_identical_to_the_in_memory_ones(tmp_path, game):
    make = synthetic_part if game == "peer-to-peer" else plai_part
    players = 3 if game == "peer-to-peer" else 4
    points = _points(tmp_path, make, players)
    metrics = tuple(sweep.metrics_for(game))
    memory = [dict(p, games=sweep.load_games(p["run_dir"])) for p in points]
    streamed = [dict(p, games=sweep.RunGames(p["run_dir"], block=1000)) for p in points]
    # parts of 1700, 2400 and 1900 games in blocks of at most 1000: 2 + 3 + 2
    assert streamed[0]["games"].ranges()[:3] == [(0, 1000), (1000, 1700), (1700, 2700)]
    assert len(streamed[0]["games"].ranges()) == 7
    table_m, diffs_m = sweep.sweep_tables(memory, metrics)
    table_s, diffs_s = sweep.sweep_tables(streamed, metrics)
    assert diffs_m.height == 2 * len(metrics)
    # rates: exact; means (kind "mean") and every interval from a standard error: 1e-12
    known = sweep.game_metrics(game)
    exact = [c for c in table_m.columns if not c.endswith(("_lo", "_hi"))
             and not (c in known and known[c].kind == "mean")]
    assert_same_table(table_m.select(exact), table_s.select(exact))
    for col in table_m.columns:
        if col not in exact:
            assert table_s[col].to_numpy() == pytest.approx(table_m[col].to_numpy(), rel=1e-12,
                                                            nan_ok=True), col
    for col in ("point", "baseline", "metric", "games", "identical_games"):
        assert diffs_s[col].to_list() == diffs_m[col].to_list(), col
    for col in ("diff", "lo", "hi", "unpaired_lo", "unpaired_hi"):
        assert diffs_s[col].to_numpy() == pytest.approx(diffs_m[col].to_numpy(), rel=1e-12,
                                                        abs=1e-12, nan_ok=True), col


def test_streamed_paired_refuses_points_with_other_games(tmp_path):
    a = _run(tmp_path / "a", [synthetic_part(3, 500, 1, 0)])
    b = _run(tmp_path / "b", [synthetic_part(3, 500, 1, 100)])
    with pytest.raises(ValueError, match="same game indices"):
        sweep.paired("all_lose_rate", sweep.RunGames(a), sweep.RunGames(b))


def test_a_run_is_never_read_whole(tmp_path, monkeypatch):
    """Every read of a RunGames is one block of at most ``block`` games."""
    points = _points(tmp_path, synthetic_part, 3)
    sizes = []
    block_of = sweep.RunGames.block_of

    def spy(self, start, stop):
        g = block_of(self, start, stop)
        sizes.append(len(g["winner"]))
        return g
    monkeypatch.setattr(sweep.RunGames, "block_of", spy)
    sweep.sweep_tables([dict(p, games=sweep.RunGames(p["run_dir"], block=1000)) for p in points],
                       ("all_lose_rate", "mean_rounds"))
    assert sizes and max(sizes) == 1000
    assert pl.Series(sizes).sum() % 6000 == 0


def test_a_long_plot_title_stays_inside_the_figure():
    """A long metric title against a long axis key is wrapped, not cut at the edges."""
    key = "card.Information-4.value"
    table = pl.DataFrame({"point": ["a", "b"], "players": [3, 3], key: ["4", "6"],
                          "imbalance": [1.0, 2.0], "imbalance_lo": [0.0, 1.0],
                          "imbalance_hi": [2.0, 3.0]})
    fig = sweep.plot_metric(table, "imbalance", [key], game="peer-to-peer")
    fig.canvas.draw()
    title = fig.axes[0].title.get_window_extent(fig.canvas.get_renderer())
    assert title.x0 >= 0 and title.x1 <= fig.bbox.width, (title, fig.bbox)
