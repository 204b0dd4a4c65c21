"""The service's output: what each audience should now see, in a platform-neutral message model.

Adapters turn a `Message` into Telegram HTML and inline keyboards, Discord embeds and components, or
terminal text. Text is a list of lines made of spans, so adapters escape each user-supplied span for their
own markup and never parse our text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    text: str
    bold: bool = False
    mono: bool = False


Line = tuple[Span, ...]


@dataclass(frozen=True)
class Button:
    """A button: a payload the service will receive back, or a URL (Telegram deep link, web page)."""

    label: str
    payload: str = ""
    url: str = ""
    opens_private: bool = False  # where the platform needs it (Telegram), send the user to the private chat


@dataclass(frozen=True)
class Message:
    lines: tuple[Line, ...]
    buttons: tuple[tuple[Button, ...], ...] = ()

    @property
    def plain_text(self) -> str:
        return "\n".join("".join(span.text for span in line) for line in self.lines)


@dataclass(frozen=True)
class ShowTable:
    """The chat's one public message (lobby, then table, then result) changed: edit it in place.

    Several of these in a row may be merged by the adapter: only the newest matters."""

    chat: str
    message: Message
    game_id: str = ""
    new_message: bool = False  # a new lobby: post a fresh message; otherwise edit the chat's table message


@dataclass(frozen=True)
class ShowHand:
    """A player's private hand message changed (sent in private / ephemeral, never in the group)."""

    chat: str
    user_id: str
    message: Message
    game_id: str = ""
    new_message: bool = False  # a new game: send a fresh message instead of editing the old one


@dataclass(frozen=True)
class Notice:
    """A new public message in the chat (game over, reminders, "start me" requests)."""

    chat: str
    message: Message


@dataclass(frozen=True)
class Reply:
    """An answer to a command, shown to the chat (or only to the user where the platform can)."""

    chat: str
    message: Message
    private: bool = False
    user_id: str = ""


@dataclass(frozen=True)
class Alert:
    """A short answer to the user who pressed a button (Telegram answerCallbackQuery, Discord ephemeral)."""

    user_id: str
    text: str
    show_alert: bool = False


Effect = ShowTable | ShowHand | Notice | Reply | Alert
