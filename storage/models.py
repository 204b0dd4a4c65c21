"""Plain records passed in and out of the store."""

from __future__ import annotations

from dataclasses import dataclass, field


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


@dataclass(frozen=True, slots=True)
class PlayerOutcome:
    user_id: str
    name: str
    durak: bool = False
    first_out: bool = False
    draw: bool = False
    points: int = 0


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game: counted into the chat's stats and archived, exactly once per game_id."""

    game_id: str
    archive_json: str
    players: list[PlayerOutcome]


@dataclass(frozen=True, slots=True)
class PlayerStats:
    user_id: str
    name: str
    games: int = 0
    durak: int = 0
    first_out: int = 0
    draws: int = 0
    points: int = 0

    @property
    def standing(self) -> tuple[int, int, int, int]:
        """Sort key of the standings: most points first, then fewer duraks, more games, more first-outs."""
        return (-self.points, self.durak, -self.games, -self.first_out)
