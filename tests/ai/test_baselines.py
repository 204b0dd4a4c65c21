"""The fixed baselines do exactly what the issue says, and easy never does the absurd thing."""

from __future__ import annotations

from core import Settings
from core.ai import make_player
from tests.ai.helpers import by_codes, stacked

TRANSFER = Settings.from_words("transfer")


def test_greedy_leads_its_lowest_plain_card_before_any_trump() -> None:
    game = stacked(Settings(), ["6S 8C 9D TC JD QC", "7C 6D 7D 8D 9C AH"], "9S")
    assert game.to_act == 0  # the holder of the lowest trump opens
    assert make_player("greedy").choose(game.view(0), game.log).code == "a:8C"


def test_greedy_covers_with_the_lowest_card_that_beats_and_never_transfers() -> None:
    game = stacked(TRANSFER, ["6S 8C 9D TC JD QC", "7S 8S 8D 9C KC AH"], "9S")
    game = by_codes(game, "0:a:8C")
    view = game.view(1)
    assert any(a.code.startswith("x:") for a in view.legal_actions)
    assert make_player("greedy").choose(view, game.log).code == "c:0:9C"


def test_greedy_takes_only_when_it_cannot_cover() -> None:
    game = stacked(Settings(), ["6S 8C 9D TC JD AC", "7C 6D 7D 8D 9C AH"], "9S")
    game = by_codes(game, "0:a:AC")
    assert make_player("greedy").choose(game.view(1), game.log).code == "t"


def test_greedy_throws_in_its_lowest_plain_card_and_never_a_trump() -> None:
    game = stacked(Settings(), ["6S 8C 8H TC JD 8S", "7C 6D 7D 9D 9C AH"], "9S")
    game = by_codes(game, "0:a:8C 1:c:0:9C")
    assert make_player("greedy").choose(game.view(0), game.log).code == "a:8H"
    game = by_codes(game, "0:a:8H 1:c:1:AH")
    assert make_player("greedy").choose(game.view(0), game.log).code == "p"  # only the trump 8S is left


def test_easy_never_takes_while_a_plain_card_can_cover() -> None:
    game = stacked(Settings(), ["6S 8C 9D TC JD QC", "7C 6D 7D 8D 9C AH"], "9S")
    game = by_codes(game, "0:a:8C")
    choices = {make_player("easy", seed=s).choose(game.view(1), game.log).code for s in range(40)}
    assert "t" not in choices and "c:0:9C" in choices


def test_easy_never_leads_a_trump_while_holding_a_plain_card() -> None:
    game = stacked(Settings(), ["6S 7S 8S TC JD QC", "7C 6D 7D 8D 9C AH"], "9S")
    choices = {make_player("easy", seed=s).choose(game.view(0), game.log).code for s in range(40)}
    assert choices <= {"a:TC", "a:JD", "a:QC"} and len(choices) > 1
