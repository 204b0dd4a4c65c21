"""Ratings per chat: openskill's Plackett-Luce model rates each game's finishing order.

Plackett-Luce rates a whole ranking at once (first out, second out, ..., the durak last) and teams, which is
what a game of Durak produces; Thurstone-Mosteller would treat it as pairs of duels. Ratings are read when a
game starts (they come with the lobby's load, `storage.scripts.SEATED_RATINGS`) and kept in its seats, so the
game's final save writes the new ones without reading anything (`bot.play.finish`).

AI seats play with a fixed rating per level and are never ranked: their own change is thrown away.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from bot.session import Seat
from core import Result

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
NEW = (MODEL.mu, MODEL.sigma)  # a person's rating before their first rated game in a chat's season
# Chosen, not measured: an easy AI a little below a new player's mu, a hard one above; a small sigma, so a
# game against the AI moves a person's rating as a game against a known player would.
AI_RATINGS: dict[str, tuple[float, float]] = {"easy": (20.0, 2.0), "normal": (25.0, 2.0), "hard": (30.0, 2.0)}
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


def rated(result: Result, seats: list[Seat], teams: bool = False) -> list[Change | None] | None:
    """Each seat's change (None for an AI seat), or None when the game is not rated: a seat of a person
    without a rating is a game started before ratings existed."""
    if any(seat.rating is None for seat in seats if not seat.is_ai):
        return None
    ranks = places(result, len(seats), teams)
    before = [AI_RATINGS.get(seat.ai, NEW) if seat.ai is not None else seat.rating or NEW for seat in seats]
    players = [MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in before]
    after = _rate(players, ranks, teams)
    return [
        None if seat.is_ai else Change(before[number], (after[number].mu, after[number].sigma))
        for number, seat in enumerate(seats)
    ]


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
