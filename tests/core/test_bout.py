"""rules.md §4 "A bout": one owner per prompt, the throw-in rank rule, priority, passes,
skipped throwers, who may throw in (all / neighbours / auto), taking, and beating off."""

from __future__ import annotations

import pytest

from core import Card, IllegalAction
from tests.core.helpers import cards, codes, game_with, hand, play

# Three players, hearts trumps, seat 0 opens against seat 1; seat 2 is the other attacker.
OPENER = "6S 6C TD JD QD KD"
DEFENDER = "7S 8C 9C 9D 8D 7D"
THIRD = "7C JS QS KS AS TC"


def three(opener: str = OPENER, defender: str = DEFENDER, third: str = THIRD, words: str = ""):  # noqa: ANN202
    return game_with([opener.split(), defender.split(), third.split()], trump="AH", settings=words, opener=0)


def test_the_opener_must_lead_any_card_and_cannot_pass() -> None:
    game = three()
    assert codes(game, 0) == {f"a:{c}" for c in OPENER.split()}
    with pytest.raises(IllegalAction, match="open the bout by playing a card"):
        play(game, "0 p")


def test_exactly_one_player_is_to_act_at_any_moment() -> None:
    game = three()
    for moves in ([], ["0 a:6S"], ["0 a:6S", "1 c:0:7S"]):
        state = play(game, *moves)
        assert [bool(state.legal_actions(s)) for s in range(3)].count(True) == 1
        assert state.legal_actions(state.to_act)


def test_attackers_add_one_card_at_a_time_and_only_when_everything_is_covered() -> None:
    game = play(three(), "0 a:6S")
    assert game.to_act == 1
    assert codes(game, 0) == set() and codes(game, 2) == set()  # both hold a six or a seven: they wait
    with pytest.raises(IllegalAction, match="not your turn"):
        play(game, "0 a:6C")


def test_only_a_rank_already_on_the_table_attack_or_cover_may_be_thrown_in() -> None:
    game = play(three(opener="6S 7H 9S KC QC JC"), "0 a:6S", "1 c:0:7S")
    assert codes(game, 0) == {"a:7H", "p"}  # the 7 came with the cover; 9S, KC, QC, JC match no rank
    with pytest.raises(IllegalAction, match="only a rank already on the table"):
        play(game, "0 a:KC")


def test_priority_goes_back_to_the_main_attacker_after_every_new_card() -> None:
    game = play(three(), "0 a:6S", "1 c:0:7S")
    assert game.to_act == 0
    game = play(game, "0 p")
    assert game.to_act == 2
    game = play(game, "2 a:7C", "1 c:1:8C")
    assert game.to_act == 0  # the new card cleared 0's pass: the main attacker is asked first again
    assert codes(game, 0) == {"a:6C", "p"}


def test_a_player_who_passed_is_not_asked_again_until_a_new_card_lands() -> None:
    game = play(three(), "0 a:6S", "1 c:0:7S", "0 p", "2 p")
    # 0 still holds 6C, but passed and no new card came: the bout is beaten off
    assert Card.parse("6C") in hand(game, 0)
    assert game.table == []
    assert game.discard_size == 2
    assert (game.to_act, game.view(None).defender) == (1, 2)  # the defender who beat off attacks next


def test_an_attacker_with_no_legal_card_is_skipped_without_being_asked() -> None:
    game = play(three(opener="6S TD JD QD KD AD"), "0 a:6S", "1 c:0:7S")
    assert game.to_act == 2
    assert game.log == [(0, "a:6S"), (1, "c:0:7S")]


def test_the_bout_is_beaten_off_when_no_allowed_attacker_holds_a_card_of_a_rank_on_the_table() -> None:
    game = play(three(opener="6S TD JD QD KD AD", third="JS QS KS AS TC JC"), "0 a:6S", "1 c:0:7S")
    assert game.discard_size == 2
    assert game.to_act == 1


def _throw_in_table(players: int, words: str):  # noqa: ANN202
    """Seat 0 opens 6S against seat 1, who covers with 7S; then seats 2, 3, 4 (and 5) hold a six or a seven."""
    hands = [["6S"], ["7S", "7H", "7C"], ["6C"], ["6D"], ["7D"], ["6H"]][:players]
    deck = "" if players < 6 else "deck=36"
    game = game_with(hands, trump=None if players == 6 else "8H", settings=f"{words} {deck}", opener=0)
    return play(game, "0 a:6S", "1 c:0:7S")


@pytest.mark.parametrize("players", [5, 6])
def test_throw_in_neighbours_only_the_main_attacker_and_the_player_left_of_the_defender(players: int) -> None:
    game = _throw_in_table(players, "neighbours")
    assert game.to_act == 2  # 0 holds nothing to throw and is skipped
    assert all(not game.legal_actions(s) for s in range(3, players))
    game = play(game, "2 p")
    assert game.discard_size == 2  # 3, 4 (and 5) hold sixes and sevens but are never asked
    assert game.to_act == 1


@pytest.mark.parametrize("players", [5, 6])
def test_throw_in_auto_is_neighbours_with_five_or_more_active_players(players: int) -> None:
    game = play(_throw_in_table(players, "auto"), "2 p")
    assert game.discard_size == 2


def test_throw_in_auto_is_all_with_four_active_players() -> None:
    game = play(_throw_in_table(4, "auto"), "2 p")
    assert game.to_act == 3


def test_throw_in_all_lets_every_active_player_but_the_defender_throw_in_clockwise() -> None:
    game = _throw_in_table(5, "")
    asked = []
    while game.table:
        asked.append(game.to_act)
        game = play(game, f"{game.to_act} p")
    assert asked == [2, 3, 4]


def test_after_a_take_attackers_may_still_throw_in_then_the_defender_picks_up_the_table() -> None:
    game = play(three(opener="6S 6C 7C QD KD AD", third="7H JS QS KS AS TC"), "0 a:6S", "1 c:0:7S", "0 a:6C")
    game = play(game, "1 t")
    assert game.to_act == 0
    assert codes(game, 0) == {"a:7C", "p"}  # same rank rule after a take
    game = play(game, "0 a:7C")
    assert game.to_act == 2  # 0 has nothing left to throw and is skipped
    game = play(game, "2 a:7H")
    # nobody has a card of 6 or 7 left: the defender picks up everything at once
    assert set(cards("6S 7S 6C 7C 7H")) <= hand(game, 1)
    assert game.table == []
    assert game.discard_size == 0
    assert (game.to_act, game.view(None).defender) == (2, 0)  # the player after the defender attacks


def test_after_a_take_priority_starts_again_at_the_main_attacker() -> None:
    game = play(three(), "0 a:6S", "1 c:0:7S", "0 p", "2 a:7C", "1 t")
    assert game.to_act == 0  # not 2, who threw in last: the take starts priority again at the main attacker


def test_the_take_phase_ends_when_all_allowed_throwers_have_passed() -> None:
    game = play(three(), "0 a:6S", "1 t")
    assert game.to_act == 0
    game = play(game, "0 p")  # 2 holds no six and is skipped
    assert game.table == []
    assert Card.parse("6S") in hand(game, 1)


def test_the_defender_beating_off_attacks_next_and_the_table_is_discarded() -> None:
    game = play(three(), "0 a:6S", "1 c:0:7S", "0 a:6C", "1 c:1:8C", "2 a:7C", "1 c:2:9C")
    assert game.discard_size == 6
    assert all(card not in hand(game, s) for s in range(3) for card in cards("6S 7S 6C 8C 7C 9C"))
    assert game.to_act == 1


FIRST5_BOUT = ["0 a:6S", "1 c:0:9S", "0 a:6C", "1 c:1:9C", "0 a:6D", "1 c:2:TD", "0 a:9D", "1 c:3:JD"]


@pytest.mark.parametrize("first5", [True, False])
def test_first5_allows_five_attack_cards_in_the_first_bout_only(first5: bool) -> None:
    hands = ["6S 6C 6D 9D TS JC", "9S 9C TD JD JS QS"]
    game = game_with(hands, trump="AH", settings="first5" if first5 else "", opener=0)
    assert game.view(None).attack_limit == (5 if first5 else 6)
    game = play(game, *FIRST5_BOUT, "0 a:TS", "1 c:4:JS")
    if first5:  # five attack cards: beaten off although 0 still holds JC, a rank on the table
        assert game.discard_size == 10
        assert (game.to_act, game.view(None).attack_limit) == (1, 6)  # the second bout allows six again
    else:
        assert game.to_act == 0 and codes(game, 0) == {"a:JC", "p"}
