"""rules.md §8.1 to §8.4, option `exchange`: the lowest trump for the turned-up trump, in or out of turn."""

from __future__ import annotations

import pytest

from core import Action, Card, Game, IllegalAction
from tests.core.helpers import cards, codes, game_with, hand, play, talon

EXCHANGE = Action.parse("e")
# Two players, 36 cards, hearts trumps; seat 1 holds 6H, the deck's lowest trump.
ZERO = "6S 7S 8S 9S TS JS"
ONE = "6H 7C 8C 9C TC JC"


def two(trump: str = "9H", words: str = "exchange", zero: str = ZERO, opener: int = 0) -> Game:
    return game_with([zero, ONE], trump=trump, settings=words, opener=opener)


def test_the_holder_of_the_lowest_trump_may_exchange_it_out_of_turn_without_using_a_turn() -> None:
    game = two()
    assert game.to_act == 0
    assert codes(game, 1) == {"e"}
    game = play(game, "1 e")
    assert Card.parse("9H") in hand(game, 1) and Card.parse("6H") not in hand(game, 1)
    assert talon(game)[-1] == Card.parse("6H")
    assert game.view(0).trump_card == Card.parse("6H")  # everyone sees the new card under the talon
    assert game.view(0).deal_trump_card == Card.parse("9H")
    assert game.to_act == 0  # still seat 0's turn
    assert game.log == [(1, "e")]


def test_the_player_to_act_may_exchange_and_still_acts() -> None:
    game = two(opener=1)
    assert "e" in codes(game, 1) and "a:6H" in codes(game, 1)
    game = play(game, "1 e")
    assert game.to_act == 1
    assert codes(game, 1) == {f"a:{c}" for c in ["9H", "7C", "8C", "9C", "TC", "JC"]}


def test_there_is_a_single_exchange_since_the_turned_up_card_is_then_the_lowest_trump() -> None:
    game = play(two(), "1 e")
    assert codes(game, 1) == set()
    assert game.why_illegal(1, EXCHANGE) == "the turned-up trump is already the lowest trump"


def test_exchange_is_impossible_when_the_turned_up_card_is_the_lowest_trump() -> None:
    game = game_with([ZERO, "7H 7C 8C 9C TC JC"], trump="6H", settings="exchange", opener=0)
    assert all("e" not in codes(game, s) for s in range(2))
    assert game.why_illegal(1, EXCHANGE) == "the turned-up trump is already the lowest trump"


def test_exchange_is_impossible_when_the_deal_used_the_whole_deck() -> None:
    hands = [["6H"], [], [], [], [], ["AS", "KS", "QS", "JS", "TS", "9H"]]
    game = game_with(hands, settings="exchange", opener=0)
    assert game.trump == "H" and game.talon_size == 0
    assert all("e" not in codes(game, s) for s in range(6))
    assert game.why_illegal(0, EXCHANGE) == "the turned-up trump has already been drawn"


def test_exchange_is_impossible_once_the_turned_up_trump_has_been_drawn() -> None:
    hands = ["9S TC KS KC AS AC", "TS JC TD QD 9C 9H", "9D JD KD KH AD AH"]
    game = game_with(
        [h.split() for h in hands], trump="TH", talon="JS JH QS QC QH", settings="deck=24 exchange", opener=0
    )
    assert "e" in codes(game, 1)  # 9H is the lowest trump of a 24-card deck
    game = play(game, "0 a:9S", "1 c:0:TS", "0 a:TC", "1 c:1:JC", "2 a:9D", "1 c:2:TD", "2 a:JD", "1 c:3:QD")
    assert set(cards("9H TH")) <= hand(game, 1)  # the refill handed out the whole talon
    assert "e" not in codes(game, 1)
    assert game.why_illegal(1, EXCHANGE) == "the turned-up trump has already been drawn"


def test_exchange_ace_only_when_the_turned_up_trump_is_the_ace() -> None:
    assert "e" in codes(two(trump="AH", words="exchange=ace"), 1)
    game = two(trump="KH", words="exchange=ace")
    assert "e" not in codes(game, 1)
    assert "exchange=ace" in (game.why_illegal(1, EXCHANGE) or "")


def test_only_the_holder_of_the_lowest_trump_may_exchange() -> None:
    game = two()
    assert game.why_illegal(0, EXCHANGE) == "only the holder of 6H may exchange it for the trump card"
    with pytest.raises(IllegalAction):
        play(game, "0 e")


def test_exchange_is_refused_when_the_option_is_off() -> None:
    game = two(words="")
    assert "e" not in codes(game, 1)
    assert "not allowed in this game" in (game.why_illegal(1, EXCHANGE) or "")


def test_a_thrower_who_exchanges_away_their_only_card_of_a_table_rank_is_skipped() -> None:
    hands = ["6S 6H KS QS JS TS", "7S 7C 8C 9C TC JC"]
    game = game_with(hands, trump="AH", settings="exchange", opener=0)
    game = play(game, "0 a:6S", "1 c:0:7S")
    assert game.to_act == 0 and codes(game, 0) == {"a:6H", "p", "e"}
    game = play(game, "0 e")  # 0 now holds AH instead of 6H: no card of rank 6 or 7 any more (rules.md §8.4)
    assert game.discard_size == 2  # nobody else may throw in: beaten off
    assert game.to_act == 1
