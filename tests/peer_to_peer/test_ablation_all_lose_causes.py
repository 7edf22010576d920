"""A card change that moves the all-lose rate says why: the cause of the unhappy customers
of all-lose games it adds or removes (P2P-R5; the causes of why_lose.py), the same as
`simulate compare` of the ablation's baseline and variant runs gives it."""
import json

import polars as pl

from sim import api
from sim.core.stats import Z95
from sim.studies.ablation import variant_directory


def test_an_all_lose_change_of_the_ablation_names_its_cause(tmp_path):
    # Technology 13 without its shift: teams reach fewer customers' values (about +14
    # points of all-lose games at 4,000 games)
    result = api.ablate(game="peer-to-peer", players=4, games=2000, seed=1,
                        only=("TE13", "TE1"), changes=("no_effect", "value-1"),
                        out=tmp_path / "abl", threads=1)
    table = result.table
    lost = table.filter(pl.col("headline") == "all_lose rate")
    others = table.filter(pl.col("headline") != "all_lose rate")
    assert others["all_lose_cause"].null_count() == others.height
    shift = lost.filter((pl.col("card_id") == "TE13") & (pl.col("change") == "no_effect"))
    assert shift["lo"][0] > 0                              # a clear rise ...
    for r in lost.iter_rows(named=True):                   # ... each said as compare says it
        variant = result.out / variant_directory(r["card_id"], r["change"])
        causes = api.compare(result.out / "baseline", variant).loss_causes
        main = causes.main(Z95)
        assert r["all_lose_cause"] == (main["cause"] if main else None)
        lead = causes.lead(Z95)
        assert r["all_lose_cause_words"] == (
            lead.replace("games the edit ", "games the change ") if lead else None)
    assert shift["all_lose_cause"][0] == "deck"
    text = result.to_text().splitlines()
    at = next(i for i, line in enumerate(text)
              if "Technology 13 (TE13)" in line and "all_lose rate" in line)
    assert text[at + 1].startswith("    why: mostly deck: +")
    assert "unhappy customers per 1,000 games the change adds" in text[at + 1]
    csv = pl.read_csv(result.out / "ablation.csv")
    assert {"all_lose_cause", "all_lose_cause_words"} <= set(csv.columns)
    # the report reads the new columns beside the old ones
    written = api.report([result.out / "baseline"], tmp_path / "rep", replay_games=0,
                         stronger_play=0, extra={"ablation": str(result.out)})
    section = pl.read_csv(written["tables"]["ablation"])
    assert section.height == table.height and "all_lose_cause_words" in section.columns
    # its answer for the all-lose rate gives the cause of the card it shows as its Why
    doc = json.loads((tmp_path / "rep" / "answers.json").read_text())
    (worth,) = [a for a in doc["answers"] if a["question"] == "card_worth"
                and "all_lose" in a["title"]]
    assert [c["kind"] for c in worth["causes"]] == ["loss_cause"]
    assert worth["causes"][0]["words"] in set(lost["all_lose_cause_words"].drop_nulls())
