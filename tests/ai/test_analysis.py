"""A game's analysis (`core.ai.analysis`): each decision judged by `hint` on the deciding seat's own view."""

from __future__ import annotations

from core import Action, Game, Kind, Settings, new_game
from core.ai.analysis import Analysis, analyse, decision_steps
from tests.ai.helpers import brute_force_safe, open_endgames
from tests.core.helpers import game_with


def test_the_analysis_uses_only_the_seats_view() -> None:
    """Seat 0's opening decision, with the opponent's hand and the talon dealt otherwise (trumps in one,
    none in the other): the same evaluation."""
    mine = "6S 9H TD JC QS KH"
    first = game_with([mine, "7H 8H 9C TC JH QH"], trump="AH", talon="6D 7D 8C", opener=0)
    other = game_with([mine, "7S 6C 7C 8S 9S JS"], trump="AH", talon="8D 9D QC", opener=0)
    log = [(0, "a:6S"), (1, "t")]
    for game in (first, other):
        assert decision_steps(game, log, {0}) == [1]
    assert analyse(first, log, [1]) == analyse(other, log, [1])
    assert analyse(first, log, [1]) != analyse(first, log, [1], seeds=lambda step: step + 1)  # not trivially


def test_a_clearly_bad_move_is_flagged() -> None:
    """Taking in an open endgame where a cover escapes: the analysis puts the cost at 100%."""

    def take_loses_a_cover_escapes(game: Game, seat: int) -> bool:
        if seat != game.defender:
            return False
        covers = [a for a in game.legal_actions(seat) if a.kind is Kind.COVER]
        taken = game.apply(seat, Action.parse("t"))
        return not brute_force_safe(taken, seat) and any(
            brute_force_safe(game.apply(seat, a), seat) for a in covers
        )

    found = open_endgames(range(200), take_loses_a_cover_escapes)
    assert found, "no position to test"
    game = found[0]
    dealt = new_game(Settings.from_words("deck=24"), list(game.players), seed=game.seed)
    seat = game.defender
    log = [*game.log, (seat, "t")]
    (decision,) = analyse(dealt, log, [len(log)])
    assert decision.seat == seat and decision.played.kind is Kind.TAKE
    assert decision.best.kind is Kind.COVER and decision.costly and decision.cost == 1.0
    assert Analysis.decode(Analysis((seat,), (decision,)).encode()).decisions == (decision,)
