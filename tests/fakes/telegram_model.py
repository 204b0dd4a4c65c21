"""Data and rules of the fake Telegram Bot API: users, chats, stored messages, HTML and keyboard checks.

Telegram's own validation is reproduced where a bot can get it wrong (HTML markup, callback data size,
text length), and is on the strict side so that an escaping bug shows up in tests rather than in a group.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

MAX_TEXT_UTF16 = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_KEYBOARD_BUTTONS = 100
MAX_CALLBACK_ANSWER_CHARS = 200


class ApiError(Exception):
    """An error the Bot API answers with: HTTP status = error_code, plus optional ``parameters``."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> JSON:
        body: JSON = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(text: str, parameters: JSON | None = None) -> ApiError:
    return ApiError(400, f"Bad Request: {text}", parameters)


# one wall-clock origin for the virtual clocks of several bot processes on one Redis (`Clock(epoch=...)`)
SHARED_EPOCH = 1_764_000_000.0


class Clock:
    """Virtual seconds for rate limits and dates: real time times ``speed``, plus manual ``advance``.

    Share one clock with the code under test (its pacing uses ``now``/``sleep``) so that a test can run a
    minute of Telegram's rate limits in a second of real time. Processes that keep Telegram's limits together
    in Redis (adapters/telegram/shared_pacing.py) must agree on the time: give them one ``epoch`` (a wall
    clock time), and each counts its virtual seconds from it."""

    def __init__(self, speed: float = 1.0, epoch: float | None = None) -> None:
        self.speed = speed
        self.epoch = epoch
        self._real0 = time.monotonic()
        self._wall0 = time.time()
        self._offset = 0.0
        self._now0 = 0.0
        self._now0 = self.now()

    def now(self) -> float:
        if self.epoch is not None:
            return (time.time() - self.epoch) * self.speed + self._offset
        return (time.monotonic() - self._real0) * self.speed + self._offset

    def unscaled(self) -> float:
        """Real seconds plus manual advances: for what the bot's own latency decides (callback answers)."""
        return time.monotonic() - self._real0 + self._offset

    def wall(self) -> int:
        return int(self._wall0 + self.now() - self._now0)

    def advance(self, seconds: float) -> None:
        self._offset += seconds

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.speed)


@dataclass
class FakeUser:
    id: int
    first_name: str
    username: str | None = None
    language_code: str = "en"
    started: bool = False  # has opened the private chat with the bot (/start)
    blocked: bool = False  # has blocked the bot

    def to_json(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass
class Version:
    """One state of a message as users saw it: raw text, what it rendered to, and its keyboard."""

    at: float
    raw: str
    parse_mode: str | None
    plain: str
    entities: tuple[tuple[Any, ...], ...]
    reply_markup: JSON | None


@dataclass
class StoredMessage:
    chat_id: int
    message_id: int
    sender_id: int
    from_bot: bool
    date: int
    thread_id: int | None
    versions: list[Version]
    deleted: bool = False
    edit_date: int | None = None
    extra: JSON = field(default_factory=dict)  # service fields: migrate_to_chat_id, ...

    @property
    def current(self) -> Version:
        return self.versions[-1]

    @property
    def text(self) -> str:
        return self.current.plain

    @property
    def reply_markup(self) -> JSON | None:
        return self.current.reply_markup

    @property
    def edits(self) -> int:
        return len(self.versions) - 1

    def buttons(self) -> list[JSON]:
        markup = self.current.reply_markup or {}
        return [button for row in markup.get("inline_keyboard", []) for button in row]

    def to_json(self, chat: FakeChat, sender: JSON) -> JSON:
        data: JSON = {
            "message_id": self.message_id,
            "date": self.date,
            "chat": chat.to_json(),
            "from": sender,
        }
        version = self.current
        if version.raw or not self.extra:
            data["text"] = version.plain
        if version.entities:
            data["entities"] = [entity_json(e) for e in version.entities]
        if version.reply_markup is not None and "inline_keyboard" in version.reply_markup:
            data["reply_markup"] = version.reply_markup
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            if chat.is_forum:
                data["is_topic_message"] = True
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        data.update(self.extra)
        return data


@dataclass
class FakeChat:
    id: int
    type: str  # "private", "group" or "supergroup"
    title: str = ""
    user: FakeUser | None = None  # the other side of a private chat
    is_forum: bool = False
    # user id -> creator/administrator/member/restricted/left/kicked (getChatMember's status)
    members: dict[int, str] = field(default_factory=dict)
    # "restricted" people who have left since (Telegram keeps the status and answers is_member false)
    restricted_left: set[int] = field(default_factory=set)
    bot_status: str = "member"  # the bot's own status in a group: member, administrator, kicked
    migrated_to: int | None = None
    messages: dict[int, StoredMessage] = field(default_factory=dict)
    next_message_id: int = 1

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def to_json(self) -> JSON:
        data: JSON = {"id": self.id, "type": self.type}
        if self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title
        if self.is_forum:
            data["is_forum"] = True
        return data

    def full_info(self) -> JSON:
        """getChat's ChatFullInfo: the fields PTB v22 requires, plus the chat's own."""
        gifts = dict.fromkeys(
            (
                "unlimited_gifts",
                "limited_gifts",
                "unique_gifts",
                "premium_subscription",
                "gifts_from_channels",
            ),
            False,
        )
        return {
            **self.to_json(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": gifts,
        }

    def add_message(
        self, sender_id: int, from_bot: bool, date: int, thread_id: int | None, version: Version
    ) -> StoredMessage:
        message = StoredMessage(
            self.id, self.next_message_id, sender_id, from_bot, date, thread_id, [version]
        )
        self.messages[message.message_id] = message
        self.next_message_id += 1
        return message


def entity_json(entity: tuple[Any, ...]) -> JSON:
    kind, offset, length, extra = entity
    data: JSON = {"type": kind, "offset": offset, "length": length}
    data.update(extra)
    return data


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


HTML_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline", "ins": "underline",
    "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough", "code": "code", "pre": "pre",
    "a": "text_link", "tg-spoiler": "spoiler", "span": "spoiler", "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}  # fmt: skip
TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*>")
ATTR_RE = re.compile(r"([a-zA-Z-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
HTML_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")
NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def render_text(text: str, parse_mode: str | None) -> tuple[str, tuple[tuple[Any, ...], ...]]:
    """What a client shows: the plain text and its entities. Raises 400 like Telegram for broken HTML."""
    if not parse_mode or parse_mode.upper() != "HTML":
        return text, ()
    return _render_html(text)


def _parse_error(text: str, position: int, reason: str) -> ApiError:
    offset = len(text[:position].encode())
    return bad_request(f"can't parse entities: {reason} at byte offset {offset}")


def _render_html(text: str) -> tuple[str, tuple[tuple[Any, ...], ...]]:
    plain: list[str] = []
    length = 0  # in UTF-16 units, as Telegram counts entity offsets
    stack: list[tuple[str, int, JSON, int]] = []  # tag, start offset, extra, position
    entities: list[tuple[Any, ...]] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char == "<":
            match = TAG_RE.match(text, position)
            if not match:
                raise _parse_error(text, position, "Can't find end of the tag or unescaped '<'")
            closing, name, attrs = match.group(1), match.group(2).lower(), match.group(3)
            if name not in HTML_TAGS:
                raise _parse_error(text, position, f'Unsupported start tag "{name}"')
            if closing:
                if not stack or stack[-1][0] != name:
                    expected = f'"</{stack[-1][0]}>"' if stack else "no end tag"
                    raise _parse_error(
                        text, position, f'Unmatched end tag, expected {expected}, found "</{name}>"'
                    )
                _tag, start, extra, _pos = stack.pop()
                if length > start or HTML_TAGS[name] == "pre":
                    entities.append((HTML_TAGS[name], start, length - start, tuple(sorted(extra.items()))))
            else:
                attributes = {
                    m.group(1).lower(): m.group(2) or m.group(3) or "" for m in ATTR_RE.finditer(attrs)
                }
                extra = _tag_extra(text, position, name, attributes)
                stack.append((name, length, extra, position))
            position = match.end()
            continue
        if char == "&":
            match = HTML_ENTITY_RE.match(text, position)
            if not match:
                raise _parse_error(text, position, "Unsupported HTML entity or unescaped '&'")
            name = match.group(1)
            if name.startswith("#x"):
                char = chr(int(name[2:], 16))
            elif name.startswith("#"):
                char = chr(int(name[1:]))
            else:
                char = NAMED_ENTITIES[name]
            position = match.end()
        else:
            position += 1
        plain.append(char)
        length += utf16_len(char)
    if stack:
        raise _parse_error(
            text, stack[-1][3], f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"'
        )
    return "".join(plain), tuple(sorted(entities, key=lambda e: (e[1], -e[2])))


def _tag_extra(text: str, position: int, name: str, attributes: dict[str, str]) -> JSON:
    if name == "a":
        if not attributes.get("href"):
            raise _parse_error(text, position, 'Tag "a" must have attribute href')
        return {"url": attributes["href"]}
    if name == "span" and attributes.get("class") != "tg-spoiler":
        raise _parse_error(text, position, 'Tag "span" must have class "tg-spoiler"')
    return {}


URL_SCHEMES = ("http://", "https://", "tg://")
START_PAYLOAD_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def validate_markup(markup: Any) -> JSON | None:
    """Check an inline keyboard as Telegram does (64-byte callback data, one action per button, URLs)."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        return markup  # reply keyboards and ForceReply: stored as sent
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request(
            "can't parse inline keyboard button: InlineKeyboardMarkup must be an Array of buttons"
        )
    buttons = [button for row in rows for button in row]
    if len(buttons) > MAX_KEYBOARD_BUTTONS:
        raise bad_request("reply markup is too long")
    for button in buttons:
        if not isinstance(button, dict) or not str(button.get("text", "")).strip():
            raise bad_request("can't parse inline keyboard button: Text must be non-empty")
        actions = [key for key in button if key != "text"]
        if len(actions) != 1:
            raise bad_request(
                "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
            )
        if "callback_data" in button:
            size = len(str(button["callback_data"]).encode())
            if not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
                raise bad_request("BUTTON_DATA_INVALID")
        if "url" in button and not str(button["url"]).startswith(URL_SCHEMES):
            raise bad_request(
                f"inline keyboard button URL '{button['url']}' is invalid: Unsupported URL protocol"
            )
    return markup


def check_web_app_buttons(chat: FakeChat, markup: JSON | None) -> None:
    """Mini App buttons (``web_app``) as Telegram takes them: an https page, and only in a private chat
    (groups get a t.me link to the app instead)."""
    for row in (markup or {}).get("inline_keyboard", []):
        for button in row:
            if "web_app" not in button:
                continue
            web_app = button["web_app"]
            url = str(web_app.get("url", "")) if isinstance(web_app, dict) else ""
            if not url.startswith("https://"):
                raise bad_request(
                    f"inline keyboard button Web App URL '{url}' is invalid: Only HTTPS links are allowed"
                )
            if chat.type != "private":
                raise bad_request("BUTTON_TYPE_INVALID")


def button_labels(markup: JSON | None) -> list[str]:
    if not markup:
        return []
    rows = markup.get("inline_keyboard") or markup.get("keyboard") or []
    return [button["text"] if isinstance(button, dict) else str(button) for row in rows for button in row]


def max_in_window(times: list[float], window: float) -> int:
    """The most events inside any window of ``window`` seconds (half-open), for a sorted list of times."""
    best = 0
    first = 0
    for last, moment in enumerate(times):
        while times[first] <= moment - window:
            first += 1
        best = max(best, last - first + 1)
    return best
