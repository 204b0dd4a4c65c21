"""Screens are an outbox, not a memory: what each chat's table and hands last showed is kept with the chat.

A save and the screens it changed are two things: the save is in Redis at once, the screens wait in a
process's send queue (seconds, in a busy group). A process killed in between loses them, and every player
keeps looking at the screen before that move. So adapters record, in the chat's ``messages`` hash (the one
holding the message ids, expiring with the game), what they delivered:

- ``shown:table`` = the chat version of the table last shown;
- ``shown:hand:<user>`` = ``<version>:<fingerprint>`` of that person's hand last shown;
- ``sending:table``, ``sending:hand:<user>`` = the newest version some process was let send (the shared
  pacer's, adapters/telegram/shared_pacing.py): no process sends an older one after it, so no screen goes
  backwards across processes;
- ``flight:table``, ``flight:hand:<user>`` = ``<send>|<until>`` while one process's send of that screen is
  on its way: the others' sends of it wait for its answer, so two edits never race to Telegram, and an
  edit after a hand posted anew (a turn announced) goes to the new message, not the one being deleted;
- ``content:table``, ``content:hand:<user>`` = ``<message>|<digest>|<live>``: what the screen's message
  shows, as the send that last landed left it (``live``: with buttons to press), so no process sends an
  edit that would change nothing ("message is not modified") or strips buttons a message does not have;
- ``owed:table``, ``owed:hand:<user>`` = old messages of the screen still to remove (``<chat>:<id>:<d|s>``,
  delete or strip of its buttons) after it was posted anew: whichever process sends the screen next does
  what the poster could not;
- ``said:<tag>:<user>:<chat>:<id>`` = the version of a message said for a while (`bot.effects.Reply.tag`),
  and ``unsaid:<tag>:<user>`` = the version of its newest `bot.effects.Retract`: what was said before it is
  removed, and a message still waiting to be sent then is not sent.

A hand is not sent again when a move does not change it, so its version lags the chat's without being out
of date; its fingerprint (a digest of the platform-neutral message) says whether the hand shown is the one
the stored game draws now. The table shows a countdown drawn at send time, so it is compared by version.

`bot.game.catch_up` reads these marks to re-render what a dead process never delivered. Adapters write them
through `DeliveredMarks`: batched per chat and per moment, so a busy chat costs one write per batch rather
than one per edit. A mark is written only after a send succeeded; one lost in a crash only makes a screen
look older than it is, and at worst it is shown once more.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from typing import Protocol

from bot.effects import Message
from storage import ChatRef
from storage.errors import StoreUnavailable
from storage.models import ChatRecord

log = logging.getLogger("durak.outbox")

TABLE_SHOWN = "shown:table"
HAND_SHOWN = "shown:hand:"
SENDING = "sending:"
FLIGHT = "flight:"
SPACED = "spaced:"
CONTENT = "content:"
OWED = "owed:"
SAID = "said:"
UNSAID = "unsaid:"
FLUSH_AFTER = 0.5  # seconds marks wait to be written together


def fingerprint(message: Message) -> str:
    """A short digest of a message's content: equal for equal messages, in every process."""
    return hashlib.blake2b(repr(message).encode(), digest_size=8).hexdigest()


def table_mark(version: int) -> dict[str, str]:
    """The field an adapter writes once the table drawn at chat version ``version`` is shown."""
    return {TABLE_SHOWN: str(version)}


def hand_mark(user_id: str, version: int, message: Message) -> dict[str, str]:
    """The field an adapter writes once ``message`` is shown as ``user_id``'s hand."""
    return {HAND_SHOWN + user_id: f"{version}:{fingerprint(message)}"}


def flight_mark(screen: str) -> str:
    """The field saying which send of the screen ("table", "hand:<user>") is on its way, until when."""
    return FLIGHT + screen


def spaced_mark(screen: str) -> str:
    """The field saying until when a spaced screen (a running game's table) keeps its next send back."""
    return SPACED + screen


def content_mark(screen: str) -> str:
    """The field saying what the screen's message shows (its message, a digest, whether it has buttons)."""
    return CONTENT + screen


def owed_mark(screen: str) -> str:
    """The field listing the screen's old messages still to remove after it was posted anew."""
    return OWED + screen


def said_mark(tag: str, user_id: str, where: str) -> str:
    """The field of one message said under ``tag`` for ``user_id`` (``where``: the platform's place of it)."""
    return f"{SAID}{tag}:{user_id}:{where}"


def said_marks(messages: dict[str, str], tag: str, user_id: str) -> dict[str, tuple[str, int]]:
    """The messages said under ``tag`` for ``user_id``, by field: where each is, and its version."""
    prefix = f"{SAID}{tag}:{user_id}:"
    return {
        name: (name.removeprefix(prefix), int(value) if value.isdigit() else 0)
        for name, value in messages.items()
        if name.startswith(prefix)
    }


def unsaid_mark(tag: str, user_id: str) -> str:
    """The field holding the version of the newest retraction of ``tag`` for ``user_id``."""
    return f"{UNSAID}{tag}:{user_id}"


def unsaid_version(messages: dict[str, str], tag: str, user_id: str) -> int:
    value = messages.get(unsaid_mark(tag, user_id), "")
    return int(value) if value.isdigit() else 0


def screen_marks(screen: str) -> tuple[str, str]:
    """The fields of a screen ("table", "hand:<user>") saying which version was delivered and which is on
    its way."""
    shown = TABLE_SHOWN if screen == "table" else HAND_SHOWN + screen.removeprefix("hand:")
    return shown, SENDING + screen


def table_behind(record: ChatRecord) -> bool:
    """The table last delivered is older than the stored state (or none was recorded)."""
    shown = record.messages.get(TABLE_SHOWN, "")
    return not shown.isdigit() or int(shown) < record.version


def hand_shown(messages: dict[str, str], user_id: str) -> str | None:
    """The fingerprint of the hand last delivered to ``user_id``; None when none was recorded."""
    digest = messages.get(HAND_SHOWN + user_id, "").partition(":")[2]
    return digest or None


class MarksStore(Protocol):
    """The one store call marks need (`bot.adapter.MessageMemory` has it)."""

    async def set_messages(self, chat: ChatRef, updates: dict[str, str | None]) -> None: ...


class DeliveredMarks:
    """An adapter's marks on their way to Redis: `note` after each successful send or edit; written a
    moment later, one `set_messages` per chat for everything noted meanwhile. `close` writes the rest."""

    def __init__(self, store: MarksStore, delay: float = FLUSH_AFTER) -> None:
        self.store = store
        self.delay = delay
        self.pending: dict[ChatRef, dict[str, str | None]] = {}
        self._timer: asyncio.Task[None] | None = None

    def note_table(self, chat: ChatRef, version: int) -> None:
        if version:
            self._note(chat, table_mark(version))

    def note_hand(self, chat: ChatRef, user_id: str, version: int, message: Message) -> None:
        if version:
            self._note(chat, hand_mark(user_id, version, message))

    def _note(self, chat: ChatRef, marks: dict[str, str]) -> None:
        self.pending.setdefault(chat, {}).update(marks)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        try:
            await asyncio.sleep(self.delay)
        finally:
            self._timer = None
        await self.flush()

    async def flush(self) -> None:
        """Write everything noted so far (chats concurrently)."""
        batch, self.pending = self.pending, {}
        results = await asyncio.gather(
            *(self.store.set_messages(chat, marks) for chat, marks in batch.items()), return_exceptions=True
        )
        for chat, result in zip(batch, results, strict=True):
            if isinstance(result, StoreUnavailable):
                log.info("delivery marks of %s not written: %s", chat, result)  # it may be shown once more
            elif isinstance(result, BaseException):
                log.error("delivery marks of %s failed", chat, exc_info=result)

    async def close(self) -> None:
        timer = self._timer
        if timer is not None:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
        await self.flush()
