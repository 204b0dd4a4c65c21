"""A decision: the pure outcome of one input against one chat's stored record.

`bot.game.lobby` and `bot.game.moves` return these; `bot.service` does the I/O (load, compare-and-set save,
retry).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.effects import Effect
from bot.session import ChatSession
from storage.models import GameOutcome

LOBBY_TTL = 15 * 60  # an abandoned lobby closes itself
GAME_TTL = 24 * 3600  # a running game untouched for a day is abandoned
FINISHED_TTL = 24 * 3600  # the finished game (for Rematch) is kept a day


@dataclass
class Decision:
    """What to store and what to show. ``save=False`` leaves the record alone (alerts, replies)."""

    effects: list[Effect] = field(default_factory=list)
    save: bool = False
    session: ChatSession | None = None
    ttl: int = LOBBY_TTL
    deadline: float | None = None
    outcome: GameOutcome | None = None
    last_durak: str | None = None
    clear_last_durak: bool = False


def show(*effects: Effect) -> Decision:
    """Only answer; store nothing."""
    return Decision(effects=list(effects))
