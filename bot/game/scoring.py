"""Points of a finished game (rules.md §10): the podium, winner takes all, draws, and teams.

Kept apart from the end of a game (`bot.game.finish`) because the archive's reader (`bot.game.archive`) scores
a replayed game the same way, and the game's end writes that archive: one module for both would be a cycle.
"""

from __future__ import annotations

from core import Result

PODIUM = (3, 2, 1)


def points_for(result: Result, scoring: str, seats: int, teams: bool = False) -> list[int]:
    """Podium: the first three out (never the durak) get 3, 2, 1; ``scoring=winner``: only the first out.
    Team games: every partner shares the team's result, so each player of the winning team gets 3."""
    points = [0] * seats
    if result.draw:
        return points
    if teams:
        return [0 if seat in result.losers else PODIUM[0] for seat in range(seats)]
    podium = PODIUM[:1] if scoring == "winner" else PODIUM
    for seat, gained in zip(result.order_out, podium, strict=False):
        if seat != result.durak:
            points[seat] = gained
    return points
