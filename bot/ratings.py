"""Ratings per chat: openskill's Plackett-Luce model rates each game's finishing order.

Plackett-Luce rates a whole ranking at once (first out, second out, ..., the durak last) and teams, which is
what a game of Durak produces; Thurstone-Mosteller would treat it as pairs of duels. Ratings are read when a
game starts (they come with the lobby's load, `storage.scripts.SEATED_RATINGS`) and kept in its seats, so the
game's final save writes the new ones without reading anything (`bot.game.finish`).

Ratings measure play against people (docs/reliability.md §12): AI seats are left out of the ranking, so a
game rates its people by their order among themselves and an AI's level never moves a person's rating; a
game that compares no two people (fewer than two people, or a team game whose people all sit on one side)
is not rated at all, so one person cannot farm a rating by beating AI seats. Such a game still counts in
the stats (games, durak, points), which rank below every rated player in `/stats`.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from bot.session import Seat
from core import Result

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
NEW = (MODEL.mu, MODEL.sigma)  # a person's rating before their first rated game in a chat's season
PROVISIONAL_GAMES = 5  # fewer rated games than this: listed apart in /stats


def ordinal(rating: tuple[float, float]) -> float:
    """The number shown and ranked by: mu - 3 sigma, a cautious estimate that grows as games are played."""
    return float(MODEL.rating(mu=rating[0], sigma=rating[1]).ordinal())


@dataclass(frozen=True, slots=True)
class Change:
    """A person's rating before and after one game."""

    before: tuple[float, float]
    after: tuple[float, float]

    @property
    def shown(self) -> float:
        return ordinal(self.after)

    @property
    def delta(self) -> float:
        return ordinal(self.after) - ordinal(self.before)


def places(result: Result, seats: int, teams: bool = False) -> list[int]:
    """Each seat's place for the model (lower is better): the order of going out with the durak last; a
    draw ties everyone; in a team game the winning team is first and the losing team second."""
    if result.draw:
        return [1] * seats
    losers = set(result.losers) if result.losers else {result.durak}
    if teams:
        return [2 if seat in losers else 1 for seat in range(seats)]
    place = {seat: number for number, seat in enumerate(result.order_out, start=1) if seat not in losers}
    return [place.get(seat, seats) for seat in range(seats)]


def compares_people(seats: list[Seat], teams: bool = False) -> bool:
    """Whether a game of these seats can rate anyone: two people or more, and in a team game people on both
    sides (partners who only beat AI seats together learn nothing about each other)."""
    people = [number for number, seat in enumerate(seats) if not seat.is_ai]
    if len(people) < 2:
        return False
    return not teams or len({side(seats[number], number) for number in people}) == 2


def side(seat: Seat, number: int) -> int:
    """A team game's side of a seat: the one picked in the lobby, else by seat (partners alternate)."""
    return seat.team if seat.team is not None else number % 2


def rated(result: Result, seats: list[Seat], teams: bool = False) -> list[Change | None] | None:
    """Each seat's change (None for an AI seat), or None when the game is not rated: it compares no two
    people (`compares_people`), or a person's seat has no rating (a game started before ratings existed).
    Only the people are ranked, by their places among themselves."""
    people = [number for number, seat in enumerate(seats) if not seat.is_ai]
    if not compares_people(seats, teams) or any(seats[number].rating is None for number in people):
        return None
    ranks = places(result, len(seats), teams)
    among = sorted({ranks[number] for number in people})
    before = [seats[number].rating or NEW for number in people]
    after = _rate(
        [MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in before],
        [among.index(ranks[number]) + 1 for number in people],
        teams,
    )
    changes: list[Change | None] = [None] * len(seats)
    for number, old, new in zip(people, before, after, strict=True):
        changes[number] = Change(old, (new.mu, new.sigma))
    return changes


def _rate(players: list[PlackettLuceRating], ranks: list[int], teams: bool) -> list[PlackettLuceRating]:
    """The model's new rating of each seat: one team per seat, or in a team game the two sides."""
    if not teams or len(set(ranks)) == 1:
        return [
            team[0] for team in MODEL.rate([[player] for player in players], ranks=[float(r) for r in ranks])
        ]
    sides = sorted(set(ranks))
    members = [[seat for seat, rank in enumerate(ranks) if rank == side] for side in sides]
    new = MODEL.rate([[players[seat] for seat in side] for side in members], ranks=[float(s) for s in sides])
    by_seat: dict[int, PlackettLuceRating] = {}
    for side, ratings in zip(members, new, strict=True):
        by_seat.update(zip(side, ratings, strict=True))
    return [by_seat[seat] for seat in range(len(players))]
