"""The users' side of the fake Telegram: people, groups, and what they do (type, /start, press, migrate).

Each action becomes an update queued for the bot exactly as Telegram would build it; helpers refuse what a
real client could not do (pressing a button that is not on the message, reading someone else's private
chat), because such a test would prove nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests.fakes.telegram_methods import CallbackQuery
from tests.fakes.telegram_model import (
    JSON,
    START_PAYLOAD_RE,
    Clock,
    FakeChat,
    FakeUser,
    StoredMessage,
    Version,
    utf16_len,
)

DEEP_LINK_RE = re.compile(r"https?://(?:t\.me|telegram\.me)/([A-Za-z0-9_]+)(?:\?start=(.*))?$")


class TelegramUserSide:
    users: dict[int, FakeUser]
    chats: dict[int, FakeChat]
    queries: dict[str, CallbackQuery]
    clock: Clock
    bot_username: str
    _next_query_id: int

    if TYPE_CHECKING:  # provided by FakeTelegram and TelegramMethods

        def enqueue(self, kind: str, payload: JSON, duplicate: bool = False) -> JSON: ...

        def message_json(self, message: StoredMessage) -> JSON: ...

    # --- setting the scene ------------------------------------------------------------------------------
    def add_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        language_code: str = "en",
        user_id: int | None = None,
    ) -> FakeUser:
        user_id = user_id or 1001 + len(self.users)
        user = FakeUser(
            user_id, first_name, username or re.sub(r"\W", "_", first_name.lower()), language_code
        )
        self.users[user_id] = user
        return user

    def add_group(
        self,
        title: str,
        members: tuple[FakeUser | int, ...] | list[FakeUser] = (),
        *,
        admins: tuple[FakeUser | int, ...] | list[FakeUser] = (),
        owner: FakeUser | int | None = None,
        forum: bool = False,
        kind: str = "supergroup",
        bot_admin: bool = False,
        chat_id: int | None = None,
    ) -> FakeChat:
        groups = sum(1 for chat in self.chats.values() if chat.is_group)
        if chat_id is None:
            chat_id = -1001000000001 - groups if kind == "supergroup" else -5000001 - groups
        chat = FakeChat(
            chat_id, kind, title, is_forum=forum, bot_status="administrator" if bot_admin else "member"
        )
        for member in members:
            chat.members[self.user(member).id] = "member"
        for admin in admins:
            chat.members[self.user(admin).id] = "administrator"
        if owner is not None:
            chat.members[self.user(owner).id] = "creator"
        self.chats[chat_id] = chat
        return chat

    def restrict(self, chat: FakeChat | int, user: FakeUser | int, is_member: bool = True) -> None:
        """An admin restricts ``user`` in a supergroup; ``is_member=False``: they have left it since (Telegram
        keeps the status "restricted" and answers ``is_member: false``)."""
        room, person = self.chat(chat), self.user(user)
        room.members[person.id] = "restricted"
        if is_member:
            room.restricted_left.discard(person.id)
        else:
            room.restricted_left.add(person.id)

    def user(self, user: FakeUser | int) -> FakeUser:
        return self.users[user if isinstance(user, int) else user.id]

    def chat(self, chat: FakeChat | FakeUser | int) -> FakeChat:
        """A chat by object or id; a user stands for their private chat with the bot."""
        return self.chats[chat if isinstance(chat, int) else chat.id]

    def message(self, chat: FakeChat | FakeUser | int, message_id: int) -> StoredMessage:
        return self.chat(chat).messages[message_id]

    # --- what users do ----------------------------------------------------------------------------------
    def user_starts(self, user: FakeUser | int, payload: str | None = None, duplicate: bool = False) -> JSON:
        """The user opens the private chat and taps Start (``/start <payload>`` from a deep link)."""
        person = self.user(user)
        person.started, person.blocked = True, False
        if person.id not in self.chats:
            self.chats[person.id] = FakeChat(person.id, "private", user=person)
        text = "/start" if payload is None else f"/start {payload}"
        return self.user_sends(person.id, person, text, duplicate=duplicate)

    def user_blocks(self, user: FakeUser | int) -> None:
        self.user(user).blocked = True

    def user_opens_link(self, user: FakeUser | int, url: str) -> JSON:
        """Follow a t.me deep link as a client does: an invalid start payload is silently dropped."""
        match = DEEP_LINK_RE.match(url)
        if not match or match.group(1).lower() != self.bot_username.lower():
            raise LookupError(f"not a deep link to this bot: {url}")
        payload = match.group(2)
        return self.user_starts(user, payload if payload and START_PAYLOAD_RE.fullmatch(payload) else None)

    def user_sends(
        self,
        chat: FakeChat | FakeUser | int,
        user: FakeUser | int,
        text: str,
        thread_id: int | None = None,
        duplicate: bool = False,
    ) -> JSON:
        """A text message from a user; a leading /command gets its bot_command entity, as clients send it."""
        room, person = self.chat(chat), self.user(user)
        if room.user is not None and room.user.id != person.id:
            raise LookupError(f"{person.first_name} cannot write in another user's private chat")
        if room.is_group:
            room.members.setdefault(person.id, "member")
        if room.migrated_to is not None:
            raise LookupError(f"chat {room.id} became supergroup {room.migrated_to}")
        version = Version(self.clock.now(), text, None, text, (), None)
        if text.startswith("/"):
            command = text.split()[0]
            version.entities = (("bot_command", 0, utf16_len(command), ()),)
        message = room.add_message(person.id, False, self.clock.wall(), thread_id, version)
        return self.enqueue("message", self.message_json(message), duplicate)

    def user_presses(
        self,
        chat: FakeChat | FakeUser | int,
        message_id: int,
        user: FakeUser | int,
        callback_data: str,
        duplicate: bool = False,
        strict: bool = True,
    ) -> str:
        """A tap on an inline button; returns the callback query id (see ``callback_answers``)."""
        room, person = self.chat(chat), self.user(user)
        message = room.messages.get(message_id)
        if message is None:
            raise LookupError(f"no message {message_id} in chat {room.id}")
        if room.user is not None and room.user.id != person.id:
            raise LookupError(f"{person.first_name} cannot see another user's private chat")
        if strict:
            data = [button.get("callback_data") for button in message.buttons()]
            if message.deleted or callback_data not in data:
                labels = [button["text"] for button in message.buttons()]
                raise LookupError(f"message {message_id} has no button {callback_data!r} (buttons: {labels})")
        query_id = str(self._next_query_id)
        self._next_query_id += 1
        self.queries[query_id] = CallbackQuery(
            query_id, person.id, room.id, message_id, callback_data, self.clock.unscaled()
        )
        payload = {
            "id": query_id,
            "from": person.to_json(),
            "message": self.message_json(message),
            "chat_instance": str(abs(room.id) * 7 + 3),
            "data": callback_data,
        }
        self.enqueue("callback_query", payload, duplicate)
        return query_id

    def press_button(
        self, chat: FakeChat | FakeUser | int, message_id: int, user: FakeUser | int, label: str
    ) -> Any:
        """Tap the button with this label: a callback button (query id) or a URL button (deep link). A
        Mini App button (``web_app``) opens a page, not a chat: its URL is returned for the test to open."""
        message = self.chat(chat).messages[message_id]
        for button in message.buttons():
            if button["text"] == label:
                if "web_app" in button:
                    return str(button["web_app"]["url"])
                if "url" in button:
                    return self.user_opens_link(user, button["url"])
                return self.user_presses(chat, message_id, user, button["callback_data"])
        raise LookupError(f"no button labelled {label!r} on message {message_id}")

    def migrate_group(self, chat: FakeChat | int) -> FakeChat:
        """A basic group becomes a supergroup: new id, the old one answers 400 with migrate_to_chat_id."""
        old = self.chat(chat)
        new = self.add_group(old.title, kind="supergroup", forum=old.is_forum)
        new.members = dict(old.members)
        new.bot_status = old.bot_status
        old.migrated_to = new.id
        sender = next(iter(old.members), None)
        if sender is not None:
            for room, extra in (
                (old, {"migrate_to_chat_id": new.id}),
                (new, {"migrate_from_chat_id": old.id}),
            ):
                version = Version(self.clock.now(), "", None, "", (), None)
                message = room.add_message(sender, False, self.clock.wall(), None, version)
                message.extra = extra
                self.enqueue("message", self.message_json(message))
        return new

    def remove_bot(self, chat: FakeChat | int) -> None:
        self.chat(chat).bot_status = "kicked"
