"""The service's input: plain values the adapters build from updates, interactions or typed lines."""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import translator
from bot.names import shown_name


@dataclass(frozen=True)
class User:
    id: str  # platform user id, as text
    name: str  # display name as typed by the user (escaped by the adapters, never trusted)
    lang: str = "en"  # the language the platform reports for this user (a regional code to its base, one we do not speak to en: `bot.i18n`)

    def __post_init__(self) -> None:
        """Every name enters here: it is kept without the characters that rearrange a line (`bot.names`)."""
        name = shown_name(self.name) or translator(self.lang)._("Player")
        object.__setattr__(self, "name", name)


@dataclass(frozen=True)
class Command:
    """A slash command in a chat: ``/newgame transfer`` is name "newgame", words "transfer"."""

    platform: str  # "tg", "dc" or "local"
    chat_id: str
    user: User
    name: str
    words: str = ""
    chat_title: str = ""
    is_admin: bool = False  # the platform says the user administers the chat
    private: bool = False  # a private chat with the bot (practice games against AI)
    thread_id: str = ""  # the forum topic the command was typed in (Telegram), kept with the lobby and game

    def __post_init__(self) -> None:
        """The chat's title is shown in every hand ("Durak in <title>"): cleaned like a name."""
        object.__setattr__(self, "chat_title", shown_name(self.chat_title))


@dataclass(frozen=True)
class Press:
    """A button press; the payload is untrusted text that the service itself parses and checks."""

    platform: str
    user: User
    payload: str
    through_private: bool = False  # it came through the person's private chat (a deep link), so it is open
    from_app: bool = False  # it came from the web app's page, which shows its presser the game itself


@dataclass(frozen=True)
class TimerDue:
    """A turn deadline claimed from the store: act for the seat if the game is still at ``version``."""

    platform: str
    chat_id: str
    version: int


Input = Command | Press | TimerDue
