"""Reading from the public log whether an opponent plays as greedy does or as the normal rules do.

Greedy plays its lowest card that works, takes only when it cannot cover, throws in only plain cards and never
transfers; a move that breaks one of these, given cards the seat certainly held, proves it is not greedy
(`Knowledge.not_greedy`). The normal rules never cover with a high trump while the talon is long and the table
small (`Knowledge.not_normal`). Hard's rollouts play a seat shown not normal, and not shown not greedy, as
greedy plays.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from core import Game, Settings, new_game
from core.ai import make_player
from core.ai.baselines import greedy_choice, greedy_move
from core.ai.knowledge import read_knowledge
from core.ai.players import _presumed_greedy
from core.ai.search import rollout
from tests.ai.helpers import by_codes, play_out, stacked


def _shown_not_greedy(game: Game, seat: int, viewer: int = 0) -> bool:
    return bool(read_knowledge(game.view(viewer), game.log).not_greedy >> seat & 1)


def _shown_not_normal(game: Game, seat: int, viewer: int = 0) -> bool:
    return bool(read_knowledge(game.view(viewer), game.log).not_normal >> seat & 1)


def test_a_transfer_shows_a_player_is_not_greedy() -> None:
    game = stacked(Settings.from_words("transfer"), ["6C 7C 9H KD AD QD", "6H 8C 9C TD JD KC"], "9S")
    game = by_codes(game, "0:a:6C")
    assert not _shown_not_greedy(game, 1)
    game = by_codes(game, "1:x:6H")
    assert _shown_not_greedy(game, 1)


def test_throwing_in_a_trump_shows_a_player_is_not_greedy() -> None:
    game = stacked(Settings(), ["6C 6S 9H KD AD QD", "8C 9C 6H TD JD KC"], "9S")
    game = by_codes(game, "0:a:6C 1:c:0:8C")
    assert not _shown_not_greedy(game, 0, viewer=1)
    game = by_codes(game, "0:a:6S")
    assert _shown_not_greedy(game, 0, viewer=1)


def test_taking_while_holding_a_known_card_that_covers_shows_a_player_is_not_greedy() -> None:
    game = stacked(Settings(), ["6C 7C 9H KD AD QD", "8C TC 6H TD JD KC"], "9S")
    game = by_codes(game, "0:a:7C 1:t")  # 8C and TC beat it, but nobody knows they are held
    assert not _shown_not_greedy(game, 1)
    game = by_codes(game, "0:a:6C 1:t")  # now seat 1 certainly holds the seven it picked up
    assert _shown_not_greedy(game, 1)


def test_a_lower_card_played_before_drawing_again_shows_the_earlier_cover_was_not_greedy() -> None:
    game = stacked(Settings(), ["6C 7C 9H KD AD QD", "8C 9C 6H TD JD KC"], "9S")
    game = by_codes(game, "0:a:6C 1:c:0:9C 0:a:9H 1:t")  # covered the six with the nine, not the eight
    assert not _shown_not_greedy(game, 1)
    game = by_codes(game, "0:a:7C 1:c:0:8C")  # the taker drew nothing: it held the eight all along
    assert _shown_not_greedy(game, 1)


def test_a_lower_card_played_after_a_draw_proves_nothing_but_two_of_them_after_one_draw_do() -> None:
    game = stacked(Settings(), ["6C 8S 9H KD AD QD", "7C 8C 9C 6H TD JD"], "9S")
    game = by_codes(game, "0:a:6C 1:c:0:9C 0:p")  # the seven or the eight would have covered
    game = by_codes(game, "1:a:7C")  # one card drawn since: the seven may be it
    assert not _shown_not_greedy(game, 1)
    game = by_codes(game, "0:c:0:8S 1:a:8C")  # two such cards, one draw: one of them was held
    assert _shown_not_greedy(game, 1)


def test_covering_with_a_high_trump_while_the_talon_is_long_shows_a_player_is_not_normal() -> None:
    game = stacked(Settings(), ["6S 7H 8H 9H KD QD", "7S AS 9C TD JD KC"], "9S")
    game = by_codes(game, "0:a:7H 1:c:0:AS")  # the normal rules take rather than spend the ace of trumps
    assert _shown_not_normal(game, 1)
    assert not _shown_not_greedy(game, 1)  # for all anyone knows, the ace was its only card that beats
    assert _presumed_greedy(read_knowledge(game.view(0), game.log)) == 0b10


def test_covering_with_a_low_trump_shows_nothing() -> None:
    game = stacked(Settings(), ["6S 7H 8H 9H KD QD", "7S AS 9C TD JD KC"], "9S")
    game = by_codes(game, "0:a:7H 1:c:0:7S")
    assert not _shown_not_normal(game, 1)
    assert _presumed_greedy(read_knowledge(game.view(0), game.log)) == 0


def test_a_player_shown_neither_greedy_nor_normal_is_played_by_the_normal_rules() -> None:
    game = stacked(Settings(), ["6S 7H 8H 9H KD QD", "7S AS 9C 9S JD KC"], "8S")
    game = by_codes(game, "0:a:7H 1:c:0:AS 1:a:9C 0:c:0:6S 1:a:9S")  # throws in the nine of trumps
    k = read_knowledge(game.view(0), game.log)
    assert k.not_normal >> 1 & 1 and k.not_greedy >> 1 & 1
    assert _presumed_greedy(k) == 0


def test_a_take_the_normal_rules_explain_better_counts_toward_normal() -> None:
    # Seat 1 takes a seven of hearts with the talon long: greedy takes only with nothing that beats, the normal
    # rules also when their only cover is a trump nine or better, and five of those are unseen.
    game = stacked(Settings(), ["6S 7H 8H 9H KD QD", "7C AC 9C TD JD KC"], "9S")
    game = by_codes(game, "0:a:7H 1:t")
    assert read_knowledge(game.view(0), game.log).normal_odds[1] > 0


def test_a_take_while_every_trump_worth_keeping_is_placed_counts_for_neither() -> None:
    # The viewer holds the five trumps above the turned-up nine: a take then means no card beats, both ways.
    game = stacked(Settings(), ["7H TS JS QS KS AS", "7C AC 9C TD JD KC"], "9S")
    game = by_codes(game, "0:a:7H 1:t")
    assert read_knowledge(game.view(0), game.log).normal_odds[1] == 0


def test_with_the_talon_empty_an_opponent_is_presumed_greedy_until_shown_otherwise() -> None:
    game = stacked(Settings(), ["6S 7H 8H 9H KD QD", "7C AC 9C TD JD KC", "6C 8C TC 6D 7D 8D"], "9S")
    k = read_knowledge(game.view(0), game.log)
    assert _presumed_greedy(k) == 0  # the talon is long: the two play alike, so the normal rules are assumed
    endgame = replace(k, talon_size=0)
    assert _presumed_greedy(endgame) == 0b110
    assert _presumed_greedy(replace(endgame, not_greedy=0b010)) == 0b100
    assert _presumed_greedy(replace(endgame, normal_odds=[0.0, 0.0, 1.5])) == 0b010
    assert _presumed_greedy(replace(endgame, out=[2])) == 0  # two left: as in a two-player game


def _never_misread(words: str, players: int, opponents: str) -> None:
    """Seat 0 (normal) reads the others, who all play ``opponents``, at each of its turns."""
    opponent = make_player(opponents, seed=1)
    for seed in range(6):
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(players)], seed=seed)
        normal = make_player("normal", seed=seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if seat == 0:
                k = read_knowledge(view, game.log)
                wrong = k.not_greedy if opponents == "greedy" else k.not_normal
                assert not wrong & ~1, game.log
                action = normal.choose(view, game.log)
            else:
                action = opponent.choose(view, game.log)
            game = game.apply(seat, action)


@pytest.mark.parametrize("words", ["", "transfer"])
@pytest.mark.parametrize("players", [2, 4])
def test_a_greedy_player_is_never_shown_not_greedy(words: str, players: int) -> None:
    _never_misread(words, players, "greedy")


@pytest.mark.parametrize("words", ["", "transfer"])
@pytest.mark.parametrize("players", [2, 4])
def test_a_normal_player_is_never_shown_not_normal(words: str, players: int) -> None:
    _never_misread(words, players, "normal")


def test_a_rollout_plays_the_seats_it_is_told_are_greedy_as_greedy_plays() -> None:
    for seed in range(5):
        game = new_game(Settings.from_words("transfer"), ["a", "b", "c"], seed=seed)
        finished, _ = play_out(game, [lambda view, log: greedy_choice(view)] * 3)
        value, steps = rollout(game, 0, greedy_seats=0b111)
        assert steps == finished.step
        assert value == (0.0 if finished.result.durak == 0 else 1.0)


@pytest.mark.parametrize("words", ["", "transfer", "deck=24 throw_in=neighbours", "deck=52 transfer first5"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_on_card_masks_chooses_exactly_what_greedy_on_the_view_chooses(
    words: str, players: int
) -> None:
    for seed in range(4):
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(players)], seed=seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            action = greedy_choice(game.view(seat))
            assert greedy_move(game, seat) is action, game.log
            game = game.apply(seat, action)
