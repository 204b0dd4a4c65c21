"""A stored chat this release cannot use never locks the chat.

Two things can be unusable: the state (garbage, broken JSON, a header pydantic refuses, a game or session
written by another format version during a deploy or rollback, a lobby whose rules words no longer parse),
and the chat's default `/newgame` words (e.g. `timer=900` after the limit changed). A state that does not
decode is set aside (`RedisGameStore.quarantine`: kept a week for debugging, logged once) and the chat is
told; default words that do not parse are dropped word by word, keeping the ones that do, with a line to the
chat. Either way the input that found them is then handled as usual, at once.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import lru_cache
from typing import Protocol

from pydantic import ValidationError

from bot.context import spelled_in
from bot.effects import Effect, Reply
from bot.i18n import translator
from bot.render.text import line, message
from bot.session import ChatSession, Finished, Lobby
from core import Settings
from storage import ChatRef
from storage import keys as k
from storage.models import ChatRecord
from storage.store import GameStore

log = logging.getLogger("durak.repair")

REASON_CHARS = 300  # a log line names the error, never the record
WORD_CHARS = 32  # a dropped word is shown at most this long


class Unreadable(Exception):
    """The chat's stored state does not decode; `reason` says why, without quoting the record."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def decoded(state: str) -> ChatSession:
    """The stored state as a session, or Unreadable. A lobby's or finished game's rules words must still parse
    too (a running game's settings are checked by the engine's decoder), or its first press would raise."""
    try:
        session = ChatSession.decode(state)
        if isinstance(session.header, Lobby | Finished):
            Settings.from_words(session.header.words)
    except Exception as error:  # decoding is pure: whatever it raises means this release cannot read it
        raise Unreadable(reason(error)) from error
    return session


def reason(error: Exception) -> str:
    if isinstance(error, ValidationError):
        found = error.errors(include_url=False, include_input=False)
        text = "; ".join(f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in found)
    else:
        text = str(error).partition("\n")[0]
    return f"{type(error).__name__}: {text}"[:REASON_CHARS]


async def set_aside(
    store: GameStore, chat: ChatRef, record: ChatRecord, problem: Unreadable, notes: list[Effect]
) -> ChatRecord:
    """Move the unreadable state aside and return the record to decide on: the chat without a state, or the
    chat as a save made meanwhile left it (the quarantine is a compare-and-set on the version)."""
    moved = await store.quarantine(chat, record.version)
    if isinstance(moved, ChatRecord):
        return moved
    log.warning(
        "chat=%s version=%s state set aside as %s: %s",
        chat, record.version, k.quarantine_key(chat, record.version), problem.reason,
    )  # fmt: skip
    _ = translator(record.lang)._
    text = _(
        "The game in this chat could not be restored, so it was set aside. Start a new one with {command}."
    ).format(command=spelled_in(chat, "newgame"))
    notes.append(Reply(chat.chat_id, message([line(text)])))
    return replace(record, version=moved, state=None)


@lru_cache(maxsize=512)
def usable_words(words: str) -> tuple[str, tuple[str, ...]]:
    """The chat's default words this release parses (in their order) and the ones it does not. A word is
    kept if it parses together with the words kept before it."""
    try:
        Settings.from_words(words)
        return words, ()
    except ValueError:
        pass
    kept: list[str] = []
    dropped: list[str] = []
    for word in words.split():
        try:
            Settings.from_words([*kept, word])
            kept.append(word)
        except ValueError:
            dropped.append(word)
    return " ".join(kept), tuple(dropped)


class ChatDefaults(Protocol):
    """The store calls that reading a chat's default words takes (`loaded`, `with_usable_defaults`)."""

    async def load(self, chat: ChatRef) -> ChatRecord: ...

    async def replace_chat_words(self, chat: ChatRef, read: str, words: str) -> bool: ...


async def with_usable_defaults(
    store: ChatDefaults, chat: ChatRef, record: ChatRecord, notes: list[Effect]
) -> ChatRecord:
    """The record with its default words cut to those that parse. The cut is stored, and the chat told which
    words were dropped, by the one input that makes it (not if the words changed meanwhile)."""
    if not record.settings:
        return record
    kept, dropped = usable_words(record.settings)
    if not dropped:
        return record
    if await store.replace_chat_words(chat, record.settings, kept):  # else another input did, or an admin
        shown = [word if len(word) <= WORD_CHARS else word[: WORD_CHARS - 1] + "…" for word in dropped]
        log.warning("chat=%s dropped default words this release cannot parse: %s", chat, " ".join(shown))
        _ = translator(record.lang)._
        text = _(
            "These default rules of this chat no longer work and were dropped: {words}. "
            "An admin can set new ones with {command}."
        ).format(words=", ".join(shown), command=spelled_in(chat, "settings"))
        notes.append(Reply(chat.chat_id, message([line(text)])))
    return replace(record, settings=kept or None)


async def loaded(store: ChatDefaults, chat: ChatRef, notes: list[Effect]) -> ChatRecord:
    """`store.load`, with defaults that no longer parse dropped (see `with_usable_defaults`)."""
    return await with_usable_defaults(store, chat, await store.load(chat), notes)
