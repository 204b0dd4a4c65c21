"""rules.md §1 "Cards and the deal" and §3 "Who attacks": deck sizes, the deal, trumps, the seed, the first
attacker."""

from __future__ import annotations

import pytest

from core import Card, Settings, SetupError, new_game
from tests.core.helpers import cards, codes, game_with, hand, stack, talon


@pytest.mark.parametrize(("size", "lowest"), [(24, "9"), (36, "6"), (52, "2")])
def test_every_deck_size_holds_its_ranks_up_to_the_ace_in_four_suits(size: int, lowest: str) -> None:
    game = new_game(Settings(deck=size), ["A", "B"], seed=11)
    every_card = set().union(*(hand(game, s) for s in range(2))) | set(talon(game))
    ranks = "23456789TJQKA"
    expected = {Card.parse(r + s) for r in ranks[ranks.index(lowest) :] for s in "SHDC"}
    assert every_card == expected
    assert game.talon_size == size - 12


@pytest.mark.parametrize(("size", "most"), [(24, 4), (36, 6), (52, 6)])
def test_a_deck_too_small_for_six_cards_each_is_refused_with_a_clear_message(size: int, most: int) -> None:
    new_game(Settings(deck=size), [f"P{i}" for i in range(most)], seed=1)
    with pytest.raises(SetupError, match=f"at most {most} players" if size == 24 else "2 to 6 players"):
        new_game(Settings(deck=size), [f"P{i}" for i in range(most + 1)], seed=1)


def test_durak_needs_at_least_two_players() -> None:
    with pytest.raises(SetupError, match="2 to 6 players"):
        new_game(Settings(), ["Solo"], seed=1)


def test_cards_are_dealt_one_at_a_time_clockwise_starting_left_of_the_dealer() -> None:
    first = cards("6S 6H 6D 6C 7S 7H")
    deck = first + [c for c in stack([[], [], []]) if c not in first]
    game = new_game(Settings(), ["A", "B", "C"], deck=deck, dealer=1)
    # the dealer is seat 1, so seat 2 gets the first card, then seat 0, then seat 1, and round again
    assert {"6S", "6C"} <= {str(c) for c in game.hand(2)}
    assert {"6H", "7S"} <= {str(c) for c in game.hand(0)}
    assert {"6D", "7H"} <= {str(c) for c in game.hand(1)}


def test_the_card_after_the_deal_is_turned_up_sets_trumps_and_is_drawn_last() -> None:
    game = game_with([[], []], trump="9D", talon="AC KC")
    assert game.trump == "D"
    assert talon(game)[0] == Card.parse("AC")
    assert talon(game)[-1] == Card.parse("9D")
    assert game.view(None).trump_card == Card.parse("9D")
    assert game.view(None).deal_trump_card == Card.parse("9D")


@pytest.mark.parametrize(("players", "size"), [(6, 36), (4, 24)])
def test_when_the_deal_uses_the_whole_deck_the_dealer_keeps_the_trump_card(players: int, size: int) -> None:
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[2] = ["KS", "QS", "JS", "TS", "AS", "9C"]  # the dealer's sixth card shows trumps
    game = game_with(hands, settings=f"deck={size}", dealer=2)
    assert game.trump == "C"
    assert Card.parse("9C") in hand(game, 2)
    assert game.talon_size == 0
    assert all(game.hand_size(s) == 6 for s in range(players))
    view = game.view(0)
    assert view.deal_trump_card == Card.parse("9C")  # shown to all
    assert view.trump_card is None  # nothing lies under a talon


def test_the_stored_seed_fixes_the_shuffle_so_a_game_can_be_dealt_again() -> None:
    first = new_game(Settings(), ["A", "B", "C"])
    assert first.seed is not None
    again = new_game(Settings(), ["A", "B", "C"], seed=first.seed)
    assert [first.hand(s) for s in range(3)] == [again.hand(s) for s in range(3)]
    assert talon(first) == talon(again)
    other = new_game(Settings(), ["A", "B", "C"], seed=first.seed + 1)
    assert [other.hand(s) for s in range(3)] != [first.hand(s) for s in range(3)]


def test_an_explicit_deck_must_hold_each_card_of_the_deck_once() -> None:
    deck = stack([[], []])
    with pytest.raises(SetupError, match="exactly once"):
        new_game(Settings(), ["A", "B"], deck=deck[:-1] + deck[:1])


def test_the_holder_of_the_lowest_trump_attacks_first_and_need_not_lead_it() -> None:
    game = game_with([["7H", "AS"], ["8H"], ["6H", "KS", "KC", "KD", "QS", "QC"]], trump="9H")
    assert game.to_act == 2
    assert game.view(None).attacker == 2
    assert game.view(None).defender == 0  # the next player clockwise, round the table
    assert codes(game, 2) == {f"a:{c}" for c in ["6H", "KS", "KC", "KD", "QS", "QC"]}


def test_nobody_holding_a_trump_means_the_player_left_of_the_dealer_attacks() -> None:
    plain = [f"{r}{s}" for r in "6789TJ" for s in "SCD"]
    hands = [plain[0:6], plain[6:12], plain[12:18]]
    game = game_with(hands, trump="QH", dealer=0)
    assert all(c.suit != "H" for s in range(3) for c in game.hand(s))
    assert game.to_act == 1


def test_opener_lowest_uses_the_lowest_trump_even_after_a_durak() -> None:
    hands = [["7H"], ["6H"], ["8H"]]
    game = game_with(hands, trump="9H", settings="opener=lowest", last_durak=1)
    assert game.to_act == 1


def test_durak_left_the_player_left_of_the_last_durak_attacks_so_the_durak_defends_last() -> None:
    game = game_with([["6H"], [], [], []], trump="9H", last_durak=1)
    view = game.view(None)
    assert (view.attacker, view.defender) == (2, 3)


def test_durak_right_the_player_right_of_the_last_durak_attacks_so_the_durak_defends_first() -> None:
    game = game_with([[], [], ["6H"], []], trump="9H", settings="opener=durak_right", last_durak=1)
    view = game.view(None)
    assert (view.attacker, view.defender) == (0, 1)


def test_after_a_draw_no_durak_is_passed_in_and_the_lowest_trump_attacks() -> None:
    hands = [["7H"], ["8H"], ["6H"], ["9H"]]
    for opener in ("durak_left", "durak_right"):
        game = game_with(hands, trump="TH", settings=f"opener={opener}", last_durak=None)
        assert game.to_act == 2


def test_the_stack_helper_deals_the_hands_it_is_given() -> None:
    game = game_with([["6S", "7S"], "8S 9S TS JS QS KS"], trump="AS", talon="6H")
    assert set(cards("6S 7S")) <= hand(game, 0)
    assert hand(game, 1) == set(cards("8S 9S TS JS QS KS"))
    assert talon(game)[0] == Card.parse("6H")
