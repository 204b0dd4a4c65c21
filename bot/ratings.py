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

Nor can a person farm one by letting the AI play for them (rules.md §9.6): a seat the AI was still playing
when it went out or the game ended (`Seat.left_to_ai`) ranks below every person who finished their own seat,
the durak included, as the anchors count a timeout: a loss.
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


def places(result: Result, seats: int, teams: bool = False, by_ai: frozenset[int] = frozenset()) -> list[int]:
    """Each seat's place for the model (lower is better): the order of going out with the durak last; a
    draw ties everyone; in a team game the winning team is first and the losing team second.

    ``by_ai``: seats the AI finished for their owner (rules.md §9.6), tied below everyone else, the durak
    included: the AI's play gains their owner nothing, and tied, none of them gains over another."""
    if result.draw:
        ranks = [1] * seats
    elif teams:
        losers = set(result.losers) if result.losers else {result.durak}
        ranks = [2 if seat in losers else 1 for seat in range(seats)]
    else:
        losers = set(result.losers) if result.losers else {result.durak}
        place = {seat: number for number, seat in enumerate(result.order_out, start=1) if seat not in losers}
        ranks = [place.get(seat, seats) for seat in range(seats)]
    below = max(ranks, default=0) + 1
    return [below if seat in by_ai else rank for seat, rank in enumerate(ranks)]


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
    Only the people are ranked, by their places among themselves; a seat the AI finished for its owner
    (`Seat.left_to_ai`) ranks below all who finished their own, and alone, outside their team."""
    people = [number for number, seat in enumerate(seats) if not seat.is_ai]
    if not compares_people(seats, teams) or any(seats[number].rating is None for number in people):
        return None
    by_ai = frozenset(number for number in people if seats[number].left_to_ai)
    ranks = places(result, len(seats), teams, by_ai)
    among = sorted({ranks[number] for number in people})
    before = [seats[number].rating or NEW for number in people]
    after = _rate(
        [MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in before],
        [among.index(ranks[number]) + 1 for number in people],
        [teams and not result.draw and number not in by_ai for number in people],
    )
    changes: list[Change | None] = [None] * len(seats)
    for number, old, new in zip(people, before, after, strict=True):
        changes[number] = Change(old, (new.mu, new.sigma))
    return changes


def _rate(players: list[PlackettLuceRating], ranks: list[int], sided: list[bool]) -> list[PlackettLuceRating]:
    """The model's new rating of each player: one team per player, except those ``sided`` (the partners of
    a decided team game who finished their own seats), who are rated as one team with the others of their
    rank, their side."""
    groups: dict[tuple[int, int], list[int]] = {}
    for number, rank in enumerate(ranks):
        groups.setdefault((rank, -1 if sided[number] else number), []).append(number)
    members = list(groups.values())  # in the players' order, as openskill was always given them
    if any(sided):  # a team game's sides in the order of their ranks, as they were always given
        members.sort(key=lambda group: (ranks[group[0]], group[0]))
    new = MODEL.rate(
        [[players[number] for number in group] for group in members],
        ranks=[float(ranks[group[0]]) for group in members],
    )
    by_player: dict[int, PlackettLuceRating] = {}
    for group, ratings in zip(members, new, strict=True):
        by_player.update(zip(group, ratings, strict=True))
    return [by_player[number] for number in range(len(players))]
