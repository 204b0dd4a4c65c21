"""Normal looks ahead where its rules are weakest: endgames of three or more players, and two-player endgames
too big for its exact solver."""

from __future__ import annotations

import pytest

from core import Action, Game
from core.ai import make_player, players
from core.ai.search import solve_endgame
from tests.ai.helpers import by_codes
from tests.core.helpers import game_with


def _play_normal_against_greedy(game: Game) -> int | None:
    """Seat 0 is normal, the others greedy; the durak's seat."""
    seats = [make_player("normal", seed=1)] + [make_player("greedy") for _ in range(len(game.players) - 1)]
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        game = game.apply(seat, seats[seat].choose(game.view(seat), game.log))
    assert game.result is not None
    return game.result.durak


def _whole_deck_dealt() -> Game:
    """24 cards, 4 players: nothing is left to draw from the first card on; the dealer (seat 3) shows QD."""
    return game_with(
        ["9H 9C TC JS KH JD", "9S JH JC QH AH 9D", "TH QS QC KS KC AS", "TS AC TD KD AD QD"],
        settings="deck=24",
        dealer=3,
    )


def test_normal_searches_a_four_player_endgame_where_its_rules_alone_make_it_the_durak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = by_codes(_whole_deck_dealt(), "1:a:9S 2:c:0:QS 1:a:QH 2:t 1:p 3:p 0:a:9H 1:p 3:p")
    view = game.view(0)
    assert view.talon_size == 0 and view.phase.value == "taking"
    # the rules add every plain card they can to a take; playing the endgame out keeps the nine of clubs
    assert make_player("normal", seed=1).choose(view, game.log).code == "p"
    assert _play_normal_against_greedy(_whole_deck_dealt()) != 0
    monkeypatch.setattr(players, "NORMAL_SEARCH_ACTIONS", 0)
    assert make_player("normal", seed=1).choose(view, game.log).code == "a:9C"
    assert _play_normal_against_greedy(_whole_deck_dealt()) == 0


TWO_PLAYER_LOG = (
    "0:a:6C 1:c:0:8C 0:a:8H 1:c:1:QH 1:a:6S 0:c:0:9S 0:a:9C 1:c:0:JC 0:p 1:a:7S 0:c:0:AS 1:a:7H 0:c:1:TH "
    "1:a:TS 0:c:2:9D 1:p 0:a:8S 1:c:0:JS 1:a:9H 0:c:0:7D 0:a:6H 1:c:0:JH 1:a:7C 0:c:0:KC 1:p 0:a:KS "
    "1:c:0:6D 0:a:KH 1:c:1:TD 1:a:TC"
)


def test_normal_plays_each_action_out_when_its_endgame_solver_runs_out_of_nodes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start = game_with(
        ["6C 8H 9C KC AS 9D", "6S 7S 8C TS JS QH"],
        trump="8D",
        talon="AD 9S TD JC QC TH AC 7H JH 6D KD QS 7D 8S 6H 9H 7C KH KS TC QD JD AH",
        dealer=1,
    )
    game = by_codes(start, TWO_PLAYER_LOG)  # seat 0 holds QS AH AC 8D JD AD against QC QD KD; TC to beat
    view = game.view(0)
    assert view.talon_size == 0 and len(view.hand) == 6
    ace, trump = Action.parse("c:0:AC"), Action.parse("c:0:8D")
    assert solve_endgame(game, 0, [ace, trump], players.NORMAL_SOLVER_NODES) is None  # too big for normal
    assert solve_endgame(game, 0, [ace, trump], 10**6) == {ace: 0.0, trump: 1.0}  # the cheap ace loses
    assert make_player("normal").choose(view, game.log) == trump
    monkeypatch.setattr(players, "NORMAL_LOOKAHEAD", False)
    assert make_player("normal").choose(view, game.log) == ace
