"""The engine's reasons as codes with their cards and seats (`core.reasons`), which the bot words in each
language; the English of `Game.why_illegal` is the same reason (tests/core/test_messages_and_settings.py)."""

from __future__ import annotations

from core import Action, Card
from core.reasons import Refusal, Why, why_card_unplayable, why_illegal
from tests.core.helpers import game_with, play

HANDS = ["6H 6C 7S 9D TD KC", "QD 7H 8C 9C 7D 8D", "7C JS QS KS TC 8S"]  # trumps: spades (A♠ turned up)


def card(text: str) -> int:
    return Card.parse(text).id


def test_a_cover_that_does_not_beat_names_both_cards_and_trumps() -> None:
    game = play(game_with(HANDS, trump="AS", opener=0), "0 a:6H")
    refused = why_illegal(game, 1, Action.parse("c:0:QD"))
    assert refused == Refusal(Why.DOES_NOT_BEAT, card=card("QD"), target=card("6H"), trump="S")


def test_a_move_out_of_turn_names_who_acts_and_in_which_phase() -> None:
    game = play(game_with(HANDS, trump="AS", opener=0), "0 a:6H")
    assert why_illegal(game, 2, Action.parse("a:7C")) == Refusal(Why.NOT_YOUR_TURN, seat=1, doing="defend")


def test_a_throw_in_of_another_rank_names_the_card() -> None:
    game = play(game_with(HANDS, trump="AS", opener=0), "0 a:6H", "1 c:0:7H")
    assert why_illegal(game, 0, Action.parse("a:9D")) == Refusal(Why.RANK_NOT_ON_TABLE, card=card("9D"))


def test_a_legal_move_has_no_reason() -> None:
    game = play(game_with(HANDS, trump="AS", opener=0), "0 a:6H")
    assert why_illegal(game, 1, Action.parse("c:0:7H")) is None


def test_a_card_named_alone_while_defending_is_read_as_a_cover_of_the_oldest_open_card() -> None:
    game = play(game_with(HANDS, trump="AS", opener=0), "0 a:6H")
    assert why_card_unplayable(game, 1, card("QD")) == why_illegal(game, 1, Action.parse("c:0:QD"))
    assert why_card_unplayable(game, 1, card("7H")) is None
    assert why_card_unplayable(game, 1, card("AH")) == Refusal(Why.NOT_HELD, card=card("AH"))


def test_a_card_named_alone_while_throwing_in_is_read_as_a_throw_in() -> None:
    game = play(game_with(HANDS, trump="AS", opener=0), "0 a:6H", "1 c:0:7H")
    assert why_card_unplayable(game, 0, card("9D")) == Refusal(Why.RANK_NOT_ON_TABLE, card=card("9D"))
    assert why_card_unplayable(game, 0, card("6C")) is None
