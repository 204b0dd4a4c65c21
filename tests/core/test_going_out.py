"""rules.md §6 "Refill" and §7 "Going out and the result", with §4.7 and §4.9 to §4.11 (out players
skipped)."""

from __future__ import annotations

import pytest

from core import Action, Card, Game, IllegalAction
from tests.core.helpers import cards, codes, game_with, hand, play, talon

# ---- 24 cards, 4 players, the whole deck dealt: both bouts run every card out (hearts trumps) ------------

DRAW_HANDS = ["9S TC JD QS KC AD", "TS JC QD KS AC 9H", "9D 9C TH JS QH KD", "TD QC JH AS KH AH"]
FIRST_BOUT = [
    *("0 a:9S", "1 c:0:TS", "0 a:TC", "1 c:1:JC", "0 a:JD", "1 c:2:QD"),
    *("0 a:QS", "1 c:3:KS", "0 a:KC", "1 c:4:AC", "0 a:AD", "1 c:5:9H"),
]
SECOND_BOUT = [
    *("2 a:9D", "3 c:0:TD", "2 a:9C", "3 c:1:QC", "2 a:TH", "3 c:2:JH"),
    *("2 a:JS", "3 c:3:AS", "2 a:QH", "3 c:4:KH", "2 a:KD", "3 c:5:AH"),
]


def whole_deck_game() -> Game:
    return game_with([h.split() for h in DRAW_HANDS], settings="deck=24", opener=0)


def test_a_player_is_out_the_moment_their_last_card_leaves_while_the_talon_is_empty() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT[:-1])
    assert game.out == (0,)  # mid-bout: AD still waits for its cover
    assert game.to_act == 1


def test_two_players_out_in_the_same_bout_are_ranked_in_the_order_their_last_cards_left() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT)
    assert game.out == (0, 1)
    assert not game.is_over
    assert (game.to_act, game.view(None).defender) == (2, 3)  # out players are skipped


def test_the_result_is_checked_only_after_the_whole_bout() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT, *SECOND_BOUT[:-1])
    assert game.out == (0, 1, 2)  # only seat 3 holds cards, but KD still waits for an answer
    assert not game.is_over
    assert codes(game, 3) == {"c:5:AH", "t"}


def test_nobody_left_holding_cards_is_a_draw() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT, *SECOND_BOUT)
    assert game.is_over
    assert game.result is not None
    assert (game.result.durak, game.result.draw, game.result.reason) == (None, True, "everyone_out")
    assert game.result.order_out == (0, 1, 2, 3)


def test_the_last_player_holding_cards_is_the_durak() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT, *SECOND_BOUT[:-1], "3 t")
    assert game.is_over
    assert game.result is not None
    assert (game.result.durak, game.result.draw, game.result.reason) == (3, False, "last_holder")
    assert game.result.order_out == (0, 1, 2)
    assert game.to_act is None
    assert all(not game.legal_actions(s) for s in range(4))


# ---- 36 cards, 3 players: a defender who covers with their last card -------------------------------------


def test_a_defender_who_covers_with_their_last_card_beats_off_at_once_and_attacks_after_the_refill() -> None:
    hands = ["6S 7C 8D 9S TC JD", "7S 8C 9D TS JC QD", "6D 7D 8S 9C TD JS"]
    game = game_with([h.split() for h in hands], trump="AH", opener=0)
    game = play(
        game,
        *("0 a:6S", "1 c:0:7S", "0 a:7C", "1 c:1:8C", "0 a:8D", "1 c:2:9D"),
        *("0 a:9S", "1 c:3:TS", "0 a:TC", "1 c:4:JC", "0 a:JD", "1 c:5:QD"),
    )
    # seat 2 holds cards of every rank on the table, but is never asked
    assert game.discard_size == 12
    assert game.out == ()  # the talon lasted: empty hands refill instead of going out
    assert [game.hand_size(s) for s in range(3)] == [6, 6, 6]
    assert (game.to_act, game.view(None).defender) == (1, 2)  # judged after the refill


# ---- 24 cards, 3 players: the talon runs out during the refill ------------------------------------------


def test_refill_order_is_opener_then_clockwise_then_the_defender_and_the_trump_card_comes_last() -> None:
    hands = ["9S TC KS KC AS AC", "TS JC TD QD 9C 9H", "9D JD KD KH AD AH"]
    game = game_with(
        [h.split() for h in hands], trump="TH", talon="JS JH QS QC QH", settings="deck=24", opener=0
    )
    assert talon(game) == cards("JS JH QS QC QH TH")
    game = play(game, "0 a:9S", "1 c:0:TS", "0 a:TC", "1 c:1:JC", "2 a:9D", "1 c:2:TD", "2 a:JD", "1 c:3:QD")
    assert hand(game, 0) == set(cards("KS KC AS AC JS JH"))  # the opener draws first
    assert hand(game, 2) == set(cards("KD KH AD AH QS QC"))  # then clockwise
    assert hand(game, 1) == set(cards("9C 9H QH TH"))  # the defender last, the turned-up trump last of all
    assert game.talon_size == 0
    assert game.to_act == 1


def test_an_empty_hand_goes_out_right_after_the_refill_that_empties_the_talon() -> None:
    hands = ["9S TC JD QS KC AD", "TS JC QD KS AC 9H", "9C 9D TD JS QC KD"]
    game = game_with(
        [h.split() for h in hands], trump="TH", talon="JH QH KH AS AH", settings="deck=24", opener=0
    )
    game = play(game, *FIRST_BOUT[:-1])
    assert game.out == ()  # 0 emptied their hand while the talon lasted: not out
    game = play(game, FIRST_BOUT[-1])
    assert hand(game, 0) == set(cards("JH QH KH AS AH TH"))  # 0 took the whole talon
    assert game.out == (1,)  # nothing left for the defender: out right after the refill
    assert (game.to_act, game.view(None).defender) == (2, 0)  # the next active player after the defender


# ---- 24 cards, 4 players, clubs trumps: after the first bout seat 1 holds JD JS and seat 2 KH KD KC -------

LIMIT_HANDS = ["9S QS QH QD QC KS", "TS TC TD TH JD JS", "9C 9D 9H KH KD KC", "JC JH AS AH AD AC"]


def after_first_bout() -> Game:
    game = game_with([h.split() for h in LIMIT_HANDS], settings="deck=24", opener=0)
    game = play(game, "0 a:9S", "1 c:0:TS", "2 a:9C", "1 c:1:TC", "2 a:9D", "1 c:2:TD", "2 a:9H", "1 c:3:TH")
    assert (game.to_act, game.view(None).defender, game.hand_size(2)) == (1, 2, 3)
    return game


def test_the_limit_is_the_defenders_hand_when_the_defence_began() -> None:
    game = play(after_first_bout(), "1 a:JD")
    assert game.view(None).attack_limit == 3
    game = play(game, "2 t", "1 p", "3 a:JC")
    assert game.to_act == 1  # the new card sends priority back to the main attacker
    game = play(game, "1 p", "3 a:JH")
    # three attack cards: seat 1 still holds JS, but the take ends and seat 2 picks up
    assert Card.parse("JS") in hand(game, 1)
    assert hand(game, 2) == set(cards("KH KD KC JD JC JH"))
    assert (game.to_act, game.view(None).defender) == (3, 0)


def test_a_main_attacker_who_goes_out_mid_bout_keeps_the_role_but_is_never_asked() -> None:
    game = play(after_first_bout(), "1 a:JD", "2 c:0:KD", "1 a:JS")
    assert game.out == (1,)
    game = play(game, "2 c:1:KC")
    assert game.view(None).attacker == 1
    assert game.to_act == 3
    game = play(game, "3 a:JH", "2 c:2:KH")
    assert game.out == (1, 2)  # the defender covered with their last card: beaten off, and out
    assert (game.to_act, game.view(None).defender) == (3, 0)


# ---- 36 cards, 6 players, the whole deck dealt: seats 1 and 2 go out in the first bout ---------------------

SIX_HANDS = [
    "6H 7H 8H 9H KH QS",
    "6S 7C 8D 9S TC JD",
    "7S 8C 9D TS JC QD",
    "KS 6C 6D 7D JS AS",
    "KC 8S 9C TD QC AC",
    "KD TH JH QH AD AH",
]
SIX_FIRST_BOUT = [
    *("1 a:6S", "2 c:0:7S", "1 a:7C", "2 c:1:8C", "1 a:8D", "2 c:2:9D"),
    *("1 a:9S", "2 c:3:TS", "1 a:TC", "2 c:4:JC", "1 a:JD", "2 c:5:QD"),
]


def six_after_first_bout(words: str) -> Game:
    game = game_with([h.split() for h in SIX_HANDS], settings=words, opener=1)
    game = play(game, *SIX_FIRST_BOUT)
    assert game.out == (1, 2)
    assert (game.to_act, game.view(None).defender) == (3, 4)
    return game


def test_the_transfer_target_skips_players_who_are_out() -> None:
    game = play(six_after_first_bout("transfer"), "3 a:KS", "4 x:KC", "5 x:KD", "0 x:KH")
    view = game.view(None)
    assert (view.attacker, view.defender, view.to_act) == (
        0,
        3,
        3,
    )  # past 1 and 2, back to the first attacker


def test_neighbours_after_a_transfer_are_the_last_transferrer_and_the_seat_after_the_defender() -> None:
    game = play(six_after_first_bout("transfer neighbours"), "3 a:KS", "4 x:KC", "5 x:KD")
    game = play(game, "0 c:0:6H", "0 c:1:7H", "0 c:2:8H")
    assert game.to_act == 3  # 5 (the main attacker) holds nothing to throw; 3 is left of 0, past 1 and 2
    assert codes(game, 4) == set()  # 4 holds 8S but is no neighbour
    game = play(game, "3 p")
    assert game.discard_size == 12 + 6
    assert game.to_act == 0


def test_throw_in_auto_counts_the_players_active_at_the_moment_of_asking() -> None:
    game = play(six_after_first_bout("auto"), "3 a:6C", "4 c:0:9C", "3 p")
    assert game.to_act == 0  # four active players: everyone throws in; 0 is no neighbour of defender 4


# ---- the repetition draw: 36 cards, 2 players, transfer; the same two sixes go back and forth -------------


def test_a_bout_start_position_that_recurs_with_no_discard_between_is_a_draw() -> None:
    hands = ["6S QS KS AS QC KC", "6H 6D 7S 8S 9S TS"]
    game = game_with([h.split() for h in hands], trump="AD", talon="JS", settings="transfer", opener=0)
    bout = ["0 a:6S", "1 x:6H", "0 t", "1 p"]
    game = play(game, *bout, "1 a:6D", "0 x:6H", "1 t", "0 p")
    assert not game.is_over
    game = play(game, *bout)
    assert game.is_over
    assert game.result is not None
    assert (game.result.durak, game.result.draw, game.result.reason) == (None, True, "repetition")


# ---- surrender ---------------------------------------------------------------------------------------------


def test_surrender_makes_the_leaver_the_durak_and_ends_the_game_for_all() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT, "3 s")
    assert game.is_over
    assert game.result is not None
    assert (game.result.durak, game.result.draw, game.result.reason) == (3, False, "surrender")
    assert all(not game.legal_actions(s) for s in range(4))
    with pytest.raises(IllegalAction, match="the game is over"):
        play(game, "2 a:9D")


def test_after_a_surrender_the_players_already_out_keep_their_places_and_the_rest_follow() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT, "3 s")
    assert game.result is not None
    assert game.result.order_out == (0, 1, 2), "seats 0 and 1 went out; seat 2 still held cards"


FOUR_SUITS = ["6S 7S 8S 9S TS JS", "6C 7C 8C 9C TC JC", "6D 7D 8D 9D TD JD", "6H 7H 8H 9H TH JH"]


def test_after_a_surrender_those_still_in_are_placed_fewest_cards_first() -> None:
    # seat 2 attacks seat 3, who takes; seat 1 throws in: seats 1 and 2 hold 5 cards, seat 3 holds 6
    game = play(game_with(FOUR_SUITS, trump="AS", opener=2), "2 a:6D", "3 t", "0 p", "1 a:6C", "0 s")
    assert game.result is not None
    assert game.result.durak == 0
    assert game.result.order_out == (2, 1, 3), "a tie goes in seat order from the attacker (seat 2)"


def test_after_a_surrender_a_tie_is_broken_in_seat_order_from_the_attacker_round_the_table() -> None:
    game = play(game_with(FOUR_SUITS, trump="AS", opener=2), "2 a:6D", "1 s")
    assert game.result is not None
    assert game.result.order_out == (2, 3, 0), "seat 2 holds 5 cards; seats 3 and 0 hold 6, seat 3 first"


def test_surrender_is_accepted_out_of_turn_but_never_listed_as_a_legal_action() -> None:
    game = whole_deck_game()
    assert all("s" not in codes(game, s) for s in range(4))
    assert game.to_act == 0
    assert play(game, "2 s").result is not None


def test_a_player_already_out_cannot_surrender() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT)
    assert game.why_illegal(0, Action.parse("s")) == "you are already out of the game"
    with pytest.raises(IllegalAction, match="already out"):
        play(game, "0 s")
