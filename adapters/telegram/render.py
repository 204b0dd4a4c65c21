"""The neutral `Message` as Telegram sees it: HTML text (every span escaped) and an inline keyboard.

Names and chat titles are typed by users, so each span is escaped on its own and markup is only ever ours:
a player called ``<b>&lt;/b>`` shows exactly that. A rendered message is a plain value, so the delivery
queue can tell an edit that would change nothing ("message is not modified") before calling Telegram.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from adapters.telegram.deeplink import DeepLinkError, deep_link
from adapters.telegram.miniapp import MiniApp, payload_ref
from bot.adapter import MAX_PAYLOAD_BYTES, Button, Line, Message, Span

MAX_TEXT_UTF16 = 4096
CALLBACK, URL, WEB_APP = "data", "url", "web_app"

Key = tuple[str, str, str]  # (label, kind: CALLBACK, URL or WEB_APP, callback data or address)


@dataclass(frozen=True)
class Rendered:
    text: str  # Telegram HTML
    keyboard: tuple[tuple[Key, ...], ...] = ()

    def markup(self) -> InlineKeyboardMarkup | None:
        if not self.keyboard:
            return None
        return InlineKeyboardMarkup(
            [[inline_button(label, kind, value) for label, kind, value in row] for row in self.keyboard]
        )


def inline_button(label: str, kind: str, value: str) -> InlineKeyboardButton:
    """PTB's button for one key: a callback, a Mini App page (private chats only), or a link."""
    if kind == CALLBACK:
        return InlineKeyboardButton(label, callback_data=value)
    if kind == WEB_APP:
        return InlineKeyboardButton(label, web_app=WebAppInfo(url=value))
    return InlineKeyboardButton(label, url=value)


def span_html(span: Span) -> str:
    text = html.escape(span.text, quote=False)
    if span.mono:
        text = f"<code>{text}</code>"
    if span.bold:
        text = f"<b>{text}</b>"
    return text


def line_html(line: Line) -> str:
    return "".join(span_html(span) for span in line)


def button_key(
    button: Button, bot_username: str, private_chat: bool, app: MiniApp | None = None
) -> Key | None:
    """A payload button is a callback button; one that must open the private chat is a deep link there,
    unless the message already is in the private chat. One that opens the web app is a Mini App button in
    a private chat and a link to the app in a group; None (no button) without a Mini App configured."""
    if button.url:
        return (button.label, URL, button.url)
    if button.opens_app:
        ref = payload_ref(button.payload)
        if app is None or ref is None:
            return None
        if private_chat:
            return (button.label, WEB_APP, app.page_url(ref))
        return (button.label, URL, app.group_link(bot_username, ref))
    if button.opens_private and not private_chat:
        try:
            return (button.label, URL, deep_link(bot_username, button.payload))
        except DeepLinkError:
            pass  # cannot happen for Telegram's numeric chat ids; a callback button still works
    size = len(button.payload.encode())
    assert 1 <= size <= MAX_PAYLOAD_BYTES, f"callback data of {size} bytes: {button.payload!r}"
    return (button.label, CALLBACK, button.payload)


def render(
    message: Message, bot_username: str, private_chat: bool = False, app: MiniApp | None = None
) -> Rendered:
    """``app``: the Mini App, when configured (buttons that open it are left out otherwise)."""
    text = "\n".join(line_html(line) for line in message.lines)
    if not message.plain_text.strip():
        text = "…"  # Telegram refuses an empty text
    rows = (
        tuple(key for button in row if (key := button_key(button, bot_username, private_chat, app)))
        for row in message.buttons
    )
    return Rendered(text, tuple(row for row in rows if row))


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def split_long(message: Message, limit: int = MAX_TEXT_UTF16) -> list[Message]:
    """A message over Telegram's 4096 characters, cut between lines; the buttons go with the last part."""
    if utf16_len(message.plain_text) <= limit:
        return [message]
    parts: list[list[Line]] = [[]]
    size = 0
    for line in message.lines:
        length = utf16_len("".join(span.text for span in line)) + 1
        if parts[-1] and size + length > limit:
            parts.append([])
            size = 0
        parts[-1].append(_cut(line, limit))
        size += length
    return [
        Message(tuple(lines), message.buttons if number == len(parts) - 1 else ())
        for number, lines in enumerate(parts)
    ]


def _cut(line: Line, limit: int) -> Line:
    """One line longer than a whole message (never produced by our renderers) is cut rather than refused."""
    if utf16_len("".join(span.text for span in line)) <= limit:
        return line
    text = "".join(span.text for span in line)[: limit // 2]
    return (Span(text),)


def live(rendered: Rendered) -> bool:
    """A message with buttons to press (not only links)."""
    return any(kind == CALLBACK for row in rendered.keyboard for _, kind, _ in row)
