"""What the adapter remembers per chat: the ids of the messages it edits, the forum topic, the language.

The ids live in the store (`set_messages`, expiring with the chat's game) so a restarted bot keeps editing
the same table and hand messages; this class caches them and writes through. It also remembers, in memory
only, which groups became supergroups (buttons drawn before carry the old id), the names of users seen, and
the newest message id seen in each chat (ids count up per chat: how far a table is buried, `newer_than`).
The caches keep the most recently used chats and users only (`TELEGRAM_CACHE_CHATS`, `TELEGRAM_CACHE_USERS`):
a chat dropped from them is read from the store again when it next needs a message edited.
"""

from __future__ import annotations

import logging

from bot.adapter import LRU, TELEGRAM, ChatRef, MessageMemory, StoreUnavailable

log = logging.getLogger("durak.telegram")

PLATFORM = TELEGRAM
THREAD = "thread"
CACHE_CHATS = 20_000  # defaults of the settings of the same names (bot/runtime/config.py)
CACHE_USERS = 50_000


def ref(chat: str) -> ChatRef:
    return ChatRef(PLATFORM, chat)


def split_id(value: str | None) -> tuple[str, int] | None:
    """A stored ``"<game id>:<message id>"``."""
    if not value:
        return None
    game_id, _, message_id = value.rpartition(":")
    return (game_id, int(message_id)) if message_id.isdigit() else None


class ChatMemory:
    def __init__(self, store: MessageMemory, chats: int = CACHE_CHATS, users: int = CACHE_USERS) -> None:
        self.store = store
        self.ids: LRU[str, dict[str, str]] = LRU(chats)
        self.langs: LRU[str, str | None] = LRU(chats)
        self.names: LRU[str, str] = LRU(users)  # user id -> full name, from updates
        self.user_langs: LRU[str, str] = LRU(users)
        self.migrated: dict[str, str] = {}  # old group id -> supergroup id
        self.newest: LRU[int, int] = LRU(chats)  # Telegram chat id -> the newest message id seen there

    def current(self, chat: str) -> str:
        """The chat's id now (a migrated group's supergroup)."""
        seen: set[str] = set()
        while chat in self.migrated and chat not in seen:
            seen.add(chat)
            chat = self.migrated[chat]
        return chat

    async def load(self, chat: str) -> dict[str, str]:
        known = self.ids.touch(chat)
        if known is not None:
            self.langs.touch(chat)
            return known
        try:
            record = await self.store.load(ref(chat))
        except StoreUnavailable as error:
            log.warning("message ids of %s unavailable: %s", chat, error)
            return {}
        ids = self.ids[chat] = dict(record.messages)
        self.langs[chat] = record.lang
        return ids

    async def fresh(self, chat: str) -> dict[str, str]:
        """The chat's stored ids as they are now, another process's writes included (the cache is a
        process's own): read from the store and cached again; the cached ones when it does not answer."""
        try:
            record = await self.store.load(ref(chat))
        except StoreUnavailable as error:
            log.warning("message ids of %s unavailable: %s", chat, error)
            return dict(self.ids.get(chat) or {})
        ids = self.ids[chat] = dict(record.messages)
        self.langs[chat] = record.lang
        return dict(ids)

    async def remember(self, chat: str, updates: dict[str, str | None]) -> None:
        """Write through; a chat no longer cached is read first, so its cached ids are never partial."""
        ids = self.ids.touch(chat)
        if ids is None:
            ids = await self.load(chat)
            if chat not in self.ids:  # the store is unavailable: cache what we know
                self.ids[chat] = ids
        for name, value in updates.items():
            if value is None:
                ids.pop(name, None)
            else:
                ids[name] = value
        try:
            await self.store.set_messages(ref(chat), updates)
        except StoreUnavailable as error:
            log.warning("could not store message ids of %s: %s", chat, error)

    def follow(self, chat: str, name: str, value: str) -> None:
        """The store holds ``value`` for ``name`` now (read with a send's turn): another process may have
        posted that screen anew. Cached, not written back."""
        ids = self.ids.get(chat)
        if ids is not None:
            ids[name] = value

    def stored(self, chat: str, name: str) -> str:
        """The stored value of ``name`` as cached ("<game>:<message id>" for a screen), "" for none."""
        return self.ids.get(chat, {}).get(name, "")

    def message_id(self, chat: str, name: str) -> tuple[str, int] | None:
        return split_id(self.ids.get(chat, {}).get(name))

    def thread(self, chat: str) -> int | None:
        value = self.ids.get(chat, {}).get(THREAD, "")
        return int(value) if value.isdigit() else None

    async def set_thread(self, chat: str, thread: int | None) -> None:
        """The forum topic a new lobby was opened in: the game's public messages go there."""
        await self.load(chat)
        if self.thread(chat) != thread:
            await self.remember(chat, {THREAD: str(thread) if thread else None})

    def forget(self, chat: str) -> None:
        self.ids.pop(chat, None)
        self.langs.pop(chat, None)

    def saw_message(self, chat: int, message_id: int) -> None:
        """A message of ``chat`` the bot received or sent; only the newest id is kept."""
        if message_id > (self.newest.get(chat) or 0):
            self.newest[chat] = message_id

    def newer_than(self, chat: int, message_id: int) -> int:
        """How many messages of ``chat`` are known to have come after ``message_id``: message ids count up
        in a chat, so a group's messages the bot never received (privacy mode) count once any later id is
        seen. In a forum the ids are shared by all topics, so other topics' messages count too."""
        return max(0, (self.newest.get(chat) or 0) - message_id)

    def saw_user(self, user_id: str, name: str, lang: str) -> None:
        self.names[user_id] = name
        self.user_langs[user_id] = lang
