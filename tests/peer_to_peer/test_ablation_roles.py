"""A card's change is reported with what the card is (the game's ``card_role``): in
Peer-to-Peer a card with an S mark starts in that team's group deck (P2P-S3), which is why
changing it moves that team's rate and not the other's."""
import polars as pl

from sim import api
from sim.games.peer_to_peer.description import card_role


def test_a_starting_card_is_said_to_be_its_teams_and_only_then():
    assert card_role({"start": "A", "name": "Service 1"}, 4) == "in team A's starting deck"
    assert card_role({"start": " b "}, 6) == "in team B's starting deck"
    assert card_role({"start": ""}, 4) is None and card_role({}, 2) is None
    # solo: team B's S cards have no team (they join the customers by default, P2P-S3)
    assert card_role({"start": "B"}, 1) is None
    assert card_role({"start": "A"}, 1) == "in team A's starting deck"


def test_the_ablation_names_each_starting_card_with_its_team(tmp_path):
    # Service 1 starts in team A's deck, Service 4 in team B's, Technology 1 in neither
    result = api.ablate(game="peer-to-peer", players=4, games=2000, seed=1,
                        only=("SV1", "SV4", "TE1"), changes=("value-1",),
                        out=tmp_path / "abl", threads=1)
    roles = dict(result.table.select("card_id", "card_role").unique().iter_rows())
    assert roles == {"SV1": "in team A's starting deck", "SV4": "in team B's starting deck",
                     "TE1": None}
    assert pl.read_csv(result.out / "ablation.csv")["card_role"].null_count() == 3  # TE1's
    text = result.to_text()
    assert "Service 1 (SV1, in team A's starting deck)" in text
    assert "Service 4 (SV4, in team B's starting deck)" in text
    assert "Technology 1 (TE1)" in text
    # the report's section: the role in its table, and in the answer of the card it shows
    written = api.report([result.out / "baseline"], tmp_path / "rep", replay_games=0,
                         stronger_play=0, extra={"ablation": str(result.out)})
    section = pl.read_csv(written["tables"]["ablation"])
    assert dict(section.select("card_id", "card_role").unique().iter_rows())["SV1"] == (
        "in team A's starting deck")
    worth = {a["question"]: a["answer"] for a in written["answers"]
             if "ablation" in a["question"]}
    # a starting card's value moves the teams' rates most (Service 1's -1 costs team A
    # about 7 points, Service 4's gives it 4): the card each shows is one, with its team
    for headline in ("A rate", "B rate"):
        words = worth[f"What is a card worth? ({headline}, ablation)"]
        assert words.startswith(("Service 1 (value -1; in team A's starting deck)",
                                 "Service 4 (value -1; in team B's starting deck)")), words
    # an ablation written before roles (no card_role column) still reads
    old = result.out.parent / "old"
    old.mkdir()
    (old / "ablation.json").write_text((result.out / "ablation.json").read_text())
    pl.read_csv(result.out / "ablation.csv").drop("card_role").write_csv(old / "ablation.csv")
    written = api.report([result.out / "baseline"], tmp_path / "rep-old", replay_games=0,
                         stronger_play=0, extra={"ablation": str(old)})
    assert "card_role" not in pl.read_csv(written["tables"]["ablation"]).columns
