"""Plain records passed in and out of the store."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from enum import Enum


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """Everything the service needs about a chat, read in one round trip.

    `version` is 0 only for a chat never saved; it is kept when the state expires, so a version (and every
    button drawn with it) is never reused."""

    version: int = 0
    state: str | None = None
    messages: dict[str, str] = field(default_factory=dict)
    settings: str | None = None
    lang: str | None = None
    last_durak: str | None = None
    season: int = 1  # the chat's current season of stats and ratings
    # With a lobby only: the current season's rating (mu, sigma) of each seated person who has one, so the
    # game starts with them and its final save needs no read of its own.
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PlayerOutcome:
    user_id: str
    name: str
    durak: bool = False
    first_out: bool = False
    draw: bool = False
    points: int = 0
    rating: tuple[float, float] | None = None  # mu, sigma after this game; None: the game is not rated
    ai_finished: bool = False  # the AI played their seat to its end (rules.md §9.6): played, and no more


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game: counted into the chat's stats and archived, exactly once per game_id."""

    game_id: str
    archive_json: str
    players: list[PlayerOutcome]
    season: int = 1  # the season the game started in, which it counts in


@dataclass(frozen=True, slots=True)
class PlayerStats:
    user_id: str
    name: str
    games: int = 0
    durak: int = 0
    first_out: int = 0
    draws: int = 0
    points: int = 0
    rating: tuple[float, float] | None = None  # mu, sigma; None before the first rated game
    rated: int = 0  # games that changed the rating
    streak: int = 0  # n > 0: n games in a row not the durak; n < 0: the durak -n games in a row
    ai_finished: int = 0  # games whose seat the AI played to its end for them (rules.md §9.6)

    @property
    def rating_standing(self) -> tuple[bool, float, tuple[int, int, int, int]]:
        """Sort key of the rated standings: by the ordinal (mu - 3 sigma, openskill's), highest first; the
        players not rated yet after them, in `standing` order."""
        ordinal = self.rating[0] - 3 * self.rating[1] if self.rating else 0.0
        return (self.rating is None, -ordinal, self.standing)

    @property
    def standing(self) -> tuple[int, int, int, int]:
        """Sort key of the standings: most points first, then fewer duraks, more games, more first-outs."""
        return (-self.points, self.durak, -self.games, -self.first_out)


@dataclass(frozen=True, slots=True)
class Rival:
    """Head-to-head with one other player: games where they were the durak and you not (`won`), and back."""

    user_id: str
    name: str
    won: int
    lost: int


@dataclass(frozen=True, slots=True)
class PersonalRecord:
    """One player's record in one chat and season (`/me`)."""

    stats: PlayerStats
    trend: list[float]  # ordinal after each of the last rated games, oldest first
    rivals: list[Rival]  # everyone met, in no particular order


class LastDurak(Enum):
    """What a save does to the chat's last durak, besides naming a new one (`SaveRequest.last_durak`)."""

    KEEP = "keep"
    CLEAR = "clear"


@dataclass(frozen=True, slots=True)
class SaveRequest:
    """One compare-and-set save of a chat, as `GameStore.save_or_current` takes it: the service builds it
    from its decision (`bot.decision.Decision.save_request`), the store turns it into the save script's
    arguments (`storage.save`).

    Applied only while the chat is still at `expected_version`; `state` None deletes the state (the version
    stays). `ttl`: seconds the state lives untouched. `deadline`: when the turn's timer fires (None: no
    timer). `outcome`: a finished game, counted once. `last_durak`: a user id names the chat's new last durak.
    `request_id` (unique per attempt): a retry of a save whose reply was lost, or the store's question about
    it, learns the version it made. `state_must_exist`: the caller decided on its own copy of a running
    game's state, which a version alone does not prove is still stored (the state expires, the version
    stays). `running`: the chat has a game running after this save (True lists it in the running-games
    index, False removes it, None leaves the index)."""

    expected_version: int
    state: str | None
    _: KW_ONLY
    ttl: int
    deadline: float | None = None
    outcome: GameOutcome | None = None
    last_durak: str | LastDurak = LastDurak.KEEP
    request_id: str | None = None
    state_must_exist: bool = False
    running: bool | None = None

    def __post_init__(self) -> None:
        if self.ttl <= 0:
            raise ValueError("ttl must be positive")

    def last_durak_after(self, before: str | None) -> str | None:
        """The chat's last durak once this save is applied, when it was `before`."""
        if isinstance(self.last_durak, str):
            return self.last_durak
        return None if self.last_durak is LastDurak.CLEAR else before
