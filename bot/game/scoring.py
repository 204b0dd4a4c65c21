"""Points of a finished game (rules.md §10): the podium, winner takes all, draws, and teams; and what the game
adds to each person's stats, where a seat the AI finished for its owner counts as played and no more
(rules.md §9.6).

Kept apart from the end of a game (`bot.game.finish`) because the archive's reader (`bot.game.archive`) scores
a replayed game the same way, and the game's end writes that archive: one module for both would be a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.session import Seat
from core import Result

PODIUM = (3, 2, 1)


@dataclass(frozen=True, slots=True)
class Counted:
    """What one seat's game adds to its person's stats (`storage.models.PlayerOutcome`)."""

    points: int = 0
    durak: bool = False
    first_out: bool = False
    draw: bool = False
    by_ai: bool = False  # the AI was still playing the seat when it went out or the game ended


def left_to_ai(seats: Sequence[Seat]) -> frozenset[int]:
    """The seats of people the AI played to the end for them (`Seat.left_to_ai`)."""
    return frozenset(number for number, seat in enumerate(seats) if seat.left_to_ai)


def points_for(
    result: Result, scoring: str, seats: int, teams: bool = False, by_ai: frozenset[int] = frozenset()
) -> list[int]:
    """Podium: the first three out (never the durak) get 3, 2, 1; ``scoring=winner``: only the first out.
    Team games: every partner shares the team's result, so each player of the winning team gets 3.

    ``by_ai``: seats the AI finished for their owner (rules.md §9.6). They score nothing, and the places of
    the others stand as they went out: nobody moves up a place for the AI's play either."""
    points = [0] * seats
    if result.draw:
        return points
    if teams:
        points = [0 if seat in result.losers else PODIUM[0] for seat in range(seats)]
    else:
        podium = PODIUM[:1] if scoring == "winner" else PODIUM
        for seat, gained in zip(result.order_out, podium, strict=False):
            if seat != result.durak:
                points[seat] = gained
    return [0 if seat in by_ai else gained for seat, gained in enumerate(points)]


def counted(
    result: Result, scoring: str, seats: int, teams: bool = False, by_ai: frozenset[int] = frozenset()
) -> list[Counted]:
    """Each seat's stats from the game (rules.md §10): points, the durak (the whole losing team in a team
    game), the first out (the whole winning team), a draw.

    A seat in ``by_ai`` was not finished by its owner (rules.md §9.6): the game counts as played, with no
    points and no first out, as a timeout counts as a loss; but whoever is left holding cards is the durak
    whoever played the seat, so an absent owner left holding them is the durak as usual (and so is an absent
    partner of the losing team). Partners who finished their own seats keep the team's result."""
    points = points_for(result, scoring, seats, teams, by_ai)
    first = result.order_out[0] if result.order_out else None
    losers = set(result.losers) if result.losers else {result.durak}
    decided = not result.draw
    return [
        Counted(
            points=points[seat],
            durak=decided and seat in losers,
            first_out=decided and seat not in by_ai and (seat not in losers if teams else seat == first),
            draw=result.draw,
            by_ai=seat in by_ai,
        )
        for seat in range(seats)
    ]
