"""A chat's queue of what is to be sent there, and one send's turn as the pacer let it go."""

from __future__ import annotations

import asyncio
import warnings
from dataclasses import dataclass, field
from datetime import timedelta

from telegram.error import RetryAfter

from adapters.telegram.lanes import Lanes
from adapters.telegram.pacing import Admission


@dataclass
class ChatQueue:
    pending: Lanes = field(default_factory=Lanes)
    paused_until: float = 0.0
    strikes: int = 0  # 429s in a row: each doubles the pause Telegram asked for (at most MAX_BACKOFF)
    worker: asyncio.Task[None] | None = None
    waking: asyncio.Future[None] | None = None  # set while a reply waits: a table or hand ends the wait


@dataclass
class Turn:
    """One send's turn as the pacer let it go, and what came of it for the screen's shared marks."""

    ticket: str
    content: str = ""  # what the screen's message showed then ("<message>|<digest>|<live>"), "" unknown
    owed: str = ""  # the screen's old messages still owed a removal ("<chat>:<id>:<d|s>" ...)
    shows: str | None = None  # after the send: what its message shows ("": unknown; None: not changed)
    owed_done: list[str] = field(default_factory=list)  # removals made during the send

    @staticmethod
    def of(admission: Admission) -> Turn:
        return Turn(admission.ticket, admission.content, admission.owed)


def retry_seconds(error: RetryAfter) -> float:
    """``retry_after`` as seconds, whether PTB gives an int (22.x) or a timedelta (announced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PTB's notice that the type will change: we accept both
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
