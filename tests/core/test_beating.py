"""rules.md §2 "Beating a card": a higher card of the suit or any trump; a trump only by a higher trump; no duty to
follow suit. The defender answers each uncovered card (cover, take) and never passes."""

from __future__ import annotations

import pytest

from core import Card, Game, IllegalAction, beats
from tests.core.helpers import codes, game_with, hand, play

# Hearts are trumps in every game here (the ace of hearts is turned up).
DEFENDER = "8S TS 6H 7D AD 9C"


def _after_opening(card: str, defender: str = DEFENDER) -> Game:
    game = game_with([[card, "9D", "QC", "JC", "TC", "KD"], defender.split()], trump="AH", opener=0)
    return play(game, f"0 a:{card}")


def test_a_plain_card_is_beaten_by_a_higher_card_of_its_suit_or_by_any_trump() -> None:
    game = _after_opening("9S")
    assert codes(game, 1) == {"c:0:TS", "c:0:6H", "t"}  # not 8S (lower), not 7D or AD (other suit)
    assert beats(Card.parse("TS"), Card.parse("9S"), "H")
    assert beats(Card.parse("6H"), Card.parse("AS"), "H")
    assert not beats(Card.parse("AD"), Card.parse("9S"), "H")


def test_a_trump_is_beaten_only_by_a_higher_trump() -> None:
    game = _after_opening("9H", defender="8H TH AS AD 9C 7H")
    assert codes(game, 1) == {"c:0:TH", "t"}
    assert not beats(Card.parse("AS"), Card.parse("9H"), "H")


def test_trumping_while_holding_the_suit_is_allowed() -> None:
    game = _after_opening("9S")
    game = play(game, "1 c:0:6H")
    assert game.table == [(Card.parse("9S"), Card.parse("6H"))]
    assert Card.parse("TS") in hand(game, 1)


def test_the_defender_may_take_even_when_able_to_beat() -> None:
    game = _after_opening("9S")
    assert "c:0:TS" in codes(game, 1)
    game = play(game, "1 t", "0 p")
    assert Card.parse("9S") in hand(game, 1)
    assert game.to_act == 0  # the player after the defender attacks next


def test_the_defender_never_passes() -> None:
    game = _after_opening("9S")
    assert "p" not in codes(game, 1)
    with pytest.raises(IllegalAction, match="you are defending"):
        play(game, "1 p")
