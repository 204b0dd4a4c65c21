"""The Bot API methods of the fake server that read or change chats: messages, edits, callbacks, members.

Each handler takes the request's parameters (already decoded from JSON or form fields) and returns the
``result`` Telegram would, or raises `ApiError` with Telegram's status and description.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes.telegram_model import (
    JSON,
    MAX_CALLBACK_ANSWER_CHARS,
    MAX_TEXT_UTF16,
    START_PAYLOAD_RE,
    ApiError,
    Clock,
    FakeChat,
    FakeUser,
    StoredMessage,
    Version,
    bad_request,
    check_web_app_buttons,
    render_text,
    utf16_len,
    validate_markup,
)

API: dict[str, tuple[str, Callable[..., Any]]] = {}  # lower-case method name -> (name, handler)

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same as a "
    "current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
ADMIN_RIGHTS = (
    "can_be_edited", "is_anonymous", "can_manage_chat", "can_delete_messages", "can_manage_video_chats",
    "can_restrict_members", "can_promote_members", "can_change_info", "can_invite_users", "can_post_stories",
    "can_edit_stories", "can_delete_stories", "can_pin_messages", "can_manage_topics",
)  # fmt: skip
# ChatMemberRestricted's rights, all required (PTB 22.8 refuses an answer without one): none granted here
RESTRICTED_RIGHTS = (
    "can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos", "can_send_videos",
    "can_send_video_notes", "can_send_voice_notes", "can_send_polls", "can_send_other_messages",
    "can_add_web_page_previews", "can_edit_tag", "can_change_info", "can_invite_users", "can_pin_messages",
    "can_manage_topics", "can_react_to_messages",
)  # fmt: skip


def api(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(handler: Callable[..., Any]) -> Callable[..., Any]:
        API[name.lower()] = (name, handler)
        return handler

    return register


@dataclass
class CallbackQuery:
    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    at: float  # Clock.unscaled(): answer deadlines do not speed up with the game


@dataclass
class CallbackAnswer:
    query_id: str
    user_id: int
    text: str
    show_alert: bool
    delay: float  # seconds between the press and the answer (real, plus any Clock.advance)


@dataclass
class RateLimits:
    """Telegram's flood limits; None switches one off. Windows are in the clock's virtual seconds."""

    group_per_window: int | None = 20
    group_window: float = 60.0
    global_per_second: int | None = 30
    private_per_second: int | None = None  # Telegram tolerates short bursts: by default only recorded
    callback_answer_timeout: float = 15.0


def param_int(params: JSON, key: str, default: int | None = None) -> int | None:
    value = params.get(key)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad_request(f"invalid {key} specified") from None


def param_bool(params: JSON, key: str) -> bool:
    value = params.get(key)
    return value is True or str(value).lower() in ("true", "1")


class TelegramMethods:
    """State plus the message-level methods; `FakeTelegram` adds the server, updates and users' side."""

    token: str
    bot_id: int
    bot_username: str
    can_join_groups: bool
    bot_name: str
    clock: Clock
    limits: RateLimits
    users: dict[int, FakeUser]
    chats: dict[int, FakeChat]
    send_times: dict[int, list[float]]
    all_send_times: list[float]
    rate_limited: list[tuple[float, int, int]]
    queries: dict[str, CallbackQuery]
    callback_answers: dict[str, CallbackAnswer]
    commands: dict[tuple[str, str], list[JSON]]
    invalid_deep_links: list[str]
    watchers: list[Callable[[StoredMessage], None]]

    def wrote(self, message: StoredMessage) -> None:
        """A bot message was sent, edited or deleted: tell the watchers (a benchmark's simulated people look
        at their screens when they change, instead of polling every chat)."""
        for watcher in self.watchers:
            watcher(message)

    def bot_json(self) -> JSON:
        return {"id": self.bot_id, "is_bot": True, "first_name": self.bot_name, "username": self.bot_username}

    def sender_json(self, message: StoredMessage) -> JSON:
        return self.bot_json() if message.from_bot else self.users[message.sender_id].to_json()

    def message_json(self, message: StoredMessage) -> JSON:
        return message.to_json(self.chats[message.chat_id], self.sender_json(message))

    # --- who the bot may write to -----------------------------------------------------------------------
    def chat_for_bot(self, params: JSON) -> FakeChat:
        """The chat named by chat_id, if the bot may write there (403 and migration errors as Telegram)."""
        raw = params.get("chat_id")
        if raw is None or raw == "":
            raise bad_request("chat_id is empty")
        chat_id = param_int(params, "chat_id")
        chat = self.chats.get(chat_id) if chat_id is not None else None
        if chat is None:
            if chat_id in self.users:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            raise bad_request("chat not found")
        if chat.user is not None and chat.user.blocked:  # private chats exist once the user pressed Start
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if chat.migrated_to is not None:
            raise bad_request(
                "group chat was upgraded to a supergroup chat", {"migrate_to_chat_id": chat.migrated_to}
            )
        if chat.bot_status in ("kicked", "left"):
            kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind}")
        return chat

    def known_chat(self, params: JSON) -> FakeChat:
        """The chat named by chat_id for reading methods (getChat, members): no 403 there."""
        chat = self.chats.get(param_int(params, "chat_id") or 0)
        if chat is None:
            raise bad_request("chat not found")
        return chat

    def check_rate(self, chat: FakeChat) -> None:
        """429 with retry_after when this message would break a flood limit; the message is not stored."""
        now = self.clock.now()
        checks = [(self.all_send_times, self.limits.global_per_second, 1.0)]
        own = self.send_times.setdefault(chat.id, [])
        if chat.is_group:
            checks.append((own, self.limits.group_per_window, self.limits.group_window))
        else:
            checks.append((own, self.limits.private_per_second, 1.0))
        for times, limit, window in checks:
            if limit is None:
                continue
            recent = [moment for moment in times if moment > now - window]
            if len(recent) >= limit:
                retry_after = max(1, math.ceil(recent[len(recent) - limit] + window - now))
                self.rate_limited.append((now, chat.id, retry_after))
                raise ApiError(
                    429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
                )

    def record_send(self, chat: FakeChat) -> None:
        now = self.clock.now()
        self.send_times.setdefault(chat.id, []).append(now)
        self.all_send_times.append(now)

    def new_version(self, params: JSON) -> Version:
        text = params.get("text")
        if text is None or str(text) == "":
            raise bad_request("message text is empty")
        parse_mode = params.get("parse_mode") or None
        plain, entities = render_text(str(text), parse_mode)
        if not plain.strip():
            raise bad_request("message text is empty")
        if utf16_len(plain) > MAX_TEXT_UTF16:
            raise bad_request("message is too long")
        markup = validate_markup(params.get("reply_markup"))
        self.note_deep_links(markup)
        return Version(self.clock.now(), str(text), parse_mode, plain, entities, markup)

    def note_deep_links(self, markup: JSON | None) -> None:
        """Telegram accepts any URL; a start payload clients would drop is recorded for the tests."""
        for row in (markup or {}).get("inline_keyboard", []):
            for button in row:
                url = str(button.get("url", ""))
                if "?start=" in url and not START_PAYLOAD_RE.fullmatch(url.split("?start=", 1)[1]):
                    self.invalid_deep_links.append(url)

    def message_to_edit(self, params: JSON) -> tuple[FakeChat, StoredMessage]:
        if params.get("inline_message_id"):
            raise bad_request("inline messages are not supported by the fake")
        chat = self.chat_for_bot(params)
        message = chat.messages.get(param_int(params, "message_id") or 0)
        if message is None or message.deleted:
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        return chat, message

    def apply_edit(self, chat: FakeChat, message: StoredMessage, version: Version) -> JSON:
        current = message.current
        if (version.plain, version.entities, version.reply_markup) == (
            current.plain,
            current.entities,
            current.reply_markup,
        ):
            raise bad_request(NOT_MODIFIED)
        self.check_rate(chat)
        message.versions.append(version)
        message.edit_date = self.clock.wall()
        self.record_send(chat)
        self.wrote(message)
        return self.message_json(message)

    # --- methods ----------------------------------------------------------------------------------------
    @api("getMe")
    def get_me(self, params: JSON) -> JSON:
        return {**self.bot_json(), "can_join_groups": self.can_join_groups, "can_read_all_group_messages": False,
                "supports_inline_queries": False}  # fmt: skip

    @api("sendMessage")
    def send_message(self, params: JSON) -> JSON:
        chat = self.chat_for_bot(params)
        version = self.new_version(params)
        check_web_app_buttons(chat, version.reply_markup)
        thread_id = param_int(params, "message_thread_id")
        if thread_id is not None and chat.is_group and not chat.is_forum:
            thread_id = None  # outside forums Telegram ignores it for new messages
        self.check_rate(chat)
        message = chat.add_message(self.bot_id, True, self.clock.wall(), thread_id, version)
        self.record_send(chat)
        self.wrote(message)
        return self.message_json(message)

    @api("editMessageText")
    def edit_message_text(self, params: JSON) -> JSON:
        chat, message = self.message_to_edit(params)
        # Like Telegram: an edit without reply_markup removes the inline keyboard.
        version = self.new_version(params)
        check_web_app_buttons(chat, version.reply_markup)
        return self.apply_edit(chat, message, version)

    @api("editMessageReplyMarkup")
    def edit_message_reply_markup(self, params: JSON) -> JSON:
        chat, message = self.message_to_edit(params)
        markup = validate_markup(params.get("reply_markup"))
        self.note_deep_links(markup)
        check_web_app_buttons(chat, markup)
        current = message.current
        version = Version(
            self.clock.now(), current.raw, current.parse_mode, current.plain, current.entities, markup
        )
        return self.apply_edit(chat, message, version)

    @api("deleteMessage")
    def delete_message(self, params: JSON) -> bool:
        chat = self.chat_for_bot(params)
        message = chat.messages.get(param_int(params, "message_id") or 0)
        if message is None or message.deleted:
            raise bad_request("message to delete not found")
        if not message.from_bot and chat.bot_status != "administrator":
            raise bad_request("message can't be deleted")
        message.deleted = True
        self.wrote(message)
        return True

    @api("answerCallbackQuery")
    def answer_callback_query(self, params: JSON) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        query = self.queries.get(query_id)
        now = self.clock.unscaled()
        if (
            query is None
            or query_id in self.callback_answers
            or now - query.at > self.limits.callback_answer_timeout
        ):
            raise bad_request(QUERY_TOO_OLD)
        text = str(params.get("text") or "")
        if len(text) > MAX_CALLBACK_ANSWER_CHARS:
            raise bad_request("MESSAGE_TOO_LONG")
        self.callback_answers[query_id] = CallbackAnswer(
            query_id, query.user_id, text, param_bool(params, "show_alert"), now - query.at
        )
        return True

    @api("getChat")
    def get_chat(self, params: JSON) -> JSON:
        chat = self.known_chat(params)
        return chat.full_info()

    def member_json(self, chat: FakeChat, user_id: int) -> JSON:
        if user_id == self.bot_id:
            user, status = self.bot_json(), chat.bot_status
        else:
            if user_id not in self.users:
                raise bad_request("user not found")
            user = self.users[user_id].to_json()
            status = (
                "member"
                if chat.user is not None and chat.user.id == user_id
                else chat.members.get(user_id, "left")
            )
        data: JSON = {"status": status, "user": user}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(dict.fromkeys(ADMIN_RIGHTS, False))
            data.update(can_manage_chat=True, can_delete_messages=True, can_pin_messages=True)
        elif status == "restricted":  # a restriction outlives leaving: is_member says whether they are in
            data.update(dict.fromkeys(RESTRICTED_RIGHTS, False))
            data.update(is_member=user_id not in chat.restricted_left, until_date=0)
        elif status == "kicked":
            data["until_date"] = 0
        return data

    @api("getChatMember")
    def get_chat_member(self, params: JSON) -> JSON:
        chat = self.known_chat(params)
        return self.member_json(chat, param_int(params, "user_id") or 0)

    @api("getChatAdministrators")
    def get_chat_administrators(self, params: JSON) -> list[JSON]:
        chat = self.known_chat(params)
        if not chat.is_group:
            raise bad_request("there are no administrators in the private chat")
        admins = [user for user, status in chat.members.items() if status in ("creator", "administrator")]
        if chat.bot_status == "administrator":
            admins.append(self.bot_id)
        return [self.member_json(chat, user_id) for user_id in admins]

    @staticmethod
    def commands_key(params: JSON) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")

    @api("setMyCommands")
    def set_my_commands(self, params: JSON) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("can't parse commands JSON object")
        for command in commands:
            name, description = str(command.get("command", "")), str(command.get("description", ""))
            if not (1 <= len(name) <= 32 and name.replace("_", "").isalnum() and name == name.lower()):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description) <= 256:
                raise bad_request("command description is empty or too long")
        self.commands[self.commands_key(params)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    @api("getMyCommands")
    def get_my_commands(self, params: JSON) -> list[JSON]:
        return self.commands.get(self.commands_key(params), [])

    @api("deleteMyCommands")
    def delete_my_commands(self, params: JSON) -> bool:
        self.commands.pop(self.commands_key(params), None)
        return True
