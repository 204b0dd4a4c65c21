"""rules.md §5 "Transfer": who may transfer, to whom, the limits, and who leads after."""

from __future__ import annotations

import pytest

from core import Card, Game, IllegalAction
from tests.core.helpers import codes, game_with, hand, play

# Three players, hearts trumps, seat 0 opens against seat 1.
ZERO = "6S 6C 7H QS KS AS"
ONE = "6D 6H 7S 7D 8C 9C"
TWO = "7C 8S 8D 9D TD JD"


def three(zero: str = ZERO, one: str = ONE, two: str = TWO, words: str = "transfer") -> Game:
    return game_with([zero.split(), one.split(), two.split()], trump="AH", settings=words, opener=0)


def test_the_defender_may_transfer_with_a_card_of_the_rank_on_the_table_a_trump_too() -> None:
    game = play(three(), "0 a:6S")
    assert {"x:6D", "x:6H"} <= codes(game, 1)
    game = play(game, "1 x:6H")
    view = game.view(None)
    assert (view.attacker, view.defender, view.to_act) == (1, 2, 2)
    assert game.table == [(Card.parse("6S"), None), (Card.parse("6H"), None)]


def test_classic_games_have_no_transfer() -> None:
    game = play(three(words=""), "0 a:6S")
    assert not any(code.startswith("x:") for code in codes(game, 1))
    with pytest.raises(IllegalAction, match="transfers are not allowed in classic games"):
        play(game, "1 x:6D")


def test_a_transfer_may_go_round_the_table_back_to_the_first_attacker() -> None:
    game = play(three(two="6H 8S 8D 9D TD JD", one="6D 7C 7S 7D 8C 9C"), "0 a:6S", "1 x:6D", "2 x:6H")
    view = game.view(None)
    assert (view.attacker, view.defender, view.to_act) == (2, 0, 0)
    assert "x:6C" in codes(game, 0)  # and on round again: seat 1 holds five cards, enough for four


def test_the_transferrer_becomes_the_main_attacker_for_priority() -> None:
    game = play(three(), "0 a:6S", "1 x:6D", "2 c:0:8S", "2 c:1:8D")
    # both 0 (6C) and 1 (8C) could throw in: the transferrer 1 is asked first
    assert game.to_act == 1
    game = play(game, "1 p")
    assert game.to_act == 0


def test_nothing_is_thrown_in_while_uncovered_cards_wait_for_the_defender() -> None:
    game = play(three(), "0 a:6S", "1 x:6D")
    assert codes(game, 0) == set()  # 0 holds 6C, a card of the rank, but the defender answers first
    assert codes(game, 1) == set()
    assert game.to_act == 2


def test_no_transfer_once_a_card_of_the_bout_is_covered() -> None:
    game = play(three(), "0 a:6S", "1 c:0:7S", "0 a:6C")
    assert not any(code.startswith("x:") for code in codes(game, 1))
    with pytest.raises(IllegalAction, match="no transfer once a card of the bout is covered"):
        play(game, "1 x:6D")


def test_first5_still_caps_the_first_bout_however_many_transfers_it_has() -> None:
    zero, one, two = "6S 6C 8D AS KS QS", "6D 7C 9S AD KD QD", "7S 7D 8C 9C 9D TC"
    game = play(three(zero, one, two, words="transfer first5"), "0 a:6S", "1 x:6D", "2 c:0:7S", "2 c:1:7D")
    game = play(game, "1 a:7C", "2 c:2:8C", "0 a:6C", "2 c:3:9C")
    assert game.to_act == 1  # 1 holds 9S
    game = play(game, "1 p", "0 a:8D", "2 c:4:9D")
    # five attack cards: the first bout is full although 1 still holds 9S, a rank on the table
    assert Card.parse("9S") in hand(game, 1)
    assert game.discard_size == 10
    assert game.to_act == 2


# Four players, 24 cards, hearts trumps (the dealer's last card, JH): the first bout leaves seat 1 with
# KS JS and seat 2 with KD JD JC.
FOUR = [
    "9S QS QH QD QC KC",
    "TS TC TD TH KS JS",
    "9C 9D 9H KD JD JC",
    "KH AS AH AD AC JH",
]


def four_after_first_bout(words: str) -> Game:
    game = game_with([h.split() for h in FOUR], settings=f"deck=24 {words}", opener=0)
    game = play(game, "0 a:9S", "1 c:0:TS", "2 a:9C", "1 c:1:TC", "2 a:9D", "1 c:2:TD", "2 a:9H", "1 c:3:TH")
    assert game.discard_size == 8 and game.talon_size == 0
    assert (game.to_act, game.view(None).defender) == (1, 2)
    return game


def test_a_transfer_is_refused_when_the_next_player_holds_too_few_cards() -> None:
    game = play(four_after_first_bout("transfer"), "1 a:KS", "2 x:KD", "3 x:KH")
    assert game.view(None).defender == 0
    # a fourth king would make seat 1 defend four cards holding only JS: refused, not passed further
    assert "x:KC" not in codes(game, 0)
    with pytest.raises(IllegalAction, match="P1 holds too few cards to take a transfer of 4"):
        play(game, "0 x:KC")


def test_the_new_defenders_limit_is_their_hand_when_they_became_defender() -> None:
    game = play(four_after_first_bout("transfer"), "1 a:KS")
    assert game.view(None).attack_limit == 3  # seat 2 holds three cards
    game = play(game, "2 x:KD")
    assert game.view(None).attack_limit == 6  # seat 3 holds six
    game = play(game, "3 x:KH")
    assert game.view(None).attack_limit == 5  # seat 0 holds five


def test_cover_slots_follow_the_order_the_attack_cards_landed_and_may_be_covered_in_any_order() -> None:
    game = play(three(), "0 a:6S", "1 x:6D")
    assert {"c:0:8S", "c:1:8D"} <= codes(game, 2)  # slot 1 is the transfer card
    game = play(game, "2 c:1:8D")
    assert game.table == [(Card.parse("6S"), None), (Card.parse("6D"), Card.parse("8D"))]
    game = play(game, "2 c:0:8S")
    assert game.to_act == 1  # all covered: the transferrer leads the throw-in
