"""A decision: the pure outcome of one input against one chat's stored record.

`bot.game.lobby` and `bot.game.moves` return these; `bot.service` does the I/O (load, compare-and-set save,
retry).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.effects import Effect
from bot.session import ChatSession, Playing
from storage.models import GameOutcome, LastDurak, SaveRequest

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
    last_durak: str | LastDurak = LastDurak.KEEP  # a user id names the chat's new last durak

    def save_request(self, expected_version: int, *, request_id: str, state_must_exist: bool) -> SaveRequest:
        """The store's save of this decision, on the chat at ``expected_version``. The session is encoded here,
        once: the caller keeps the request's ``state`` as the record it saved. ``state_must_exist``: the
        decision was made on this process's own copy of the record, not a loaded one."""
        session = self.session
        return SaveRequest(
            expected_version,
            session.encode() if session is not None else None,
            ttl=self.ttl,
            deadline=self.deadline,
            outcome=self.outcome,
            last_durak=self.last_durak,
            request_id=request_id,
            state_must_exist=state_must_exist,
            running=session is not None and isinstance(session.header, Playing),
        )


def show(*effects: Effect) -> Decision:
    """Only answer; store nothing."""
    return Decision(effects=list(effects))
