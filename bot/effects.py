"""The service's output: what each audience should now see, in a platform-neutral message model.

Adapters turn a `Message` into Telegram HTML and inline keyboards, Discord embeds and components, or
terminal text. Text is a list of lines made of spans, so adapters escape each user-supplied span for their
own markup and never parse our text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    text: str
    bold: bool = False
    mono: bool = False


Line = tuple[Span, ...]


@dataclass(frozen=True, slots=True)
class Button:
    """A button: a payload the service will receive back, or a URL (Telegram deep link, web page)."""

    label: str
    payload: str = ""
    url: str = ""
    opens_private: bool = False  # where the platform needs it (Telegram), send the user to the private chat
    opens_app: bool = False  # open the payload's game in the web app (Telegram: the Mini App), not a press


@dataclass(frozen=True, slots=True)
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
    version: int = 0  # the chat's stored version this content belongs to (0: unknown, never dropped)
    turn_user: str = ""  # the person whose turn it is (none: nobody, or an AI seat)
    announce: bool = False  # the turn just came to ``turn_user`` after a wait: ping them where a table can
    in_play: bool = False  # drawn after a move of a running game: a platform may merge such tables a while


@dataclass(frozen=True)
class ShowHand:
    """A player's private hand message changed (sent in private / ephemeral, never in the group)."""

    chat: str
    user_id: str
    message: Message
    game_id: str = ""
    new_message: bool = False  # a new game: send a fresh message instead of editing the old one
    version: int = 0  # as `ShowTable.version`
    announce: bool = False  # their turn came after a wait: send it anew (the platform notifies), drop the old
    in_play: bool = False  # as `ShowTable.in_play`: a waiting hand may wait a while for its next change
    final: bool = False  # the game is over for this person (it ended, or they are out): never updated again


@dataclass(frozen=True)
class Notice:
    """A new public message in the chat (game over, reminders, "start me" requests)."""

    chat: str
    message: Message
    final: bool = False  # the game's result: it and the table showing the end go ahead of any reply waiting


@dataclass(frozen=True)
class Reply:
    """An answer to a command, shown to the chat (or only to the user where the platform can)."""

    chat: str
    message: Message
    private: bool = False
    user_id: str = ""
    asked_for: bool = False  # private, and asked for (/me): if it cannot reach them, the chat says so
    answer: bool = False  # an adapter's: a press's or command's own answer said as a message (no toast there)
    tag: str = (
        ""  # true only for a while (`Retract`): the adapter keeps where it went, under the tag and user
    )
    version: int = (
        0  # as `ShowTable.version`: a `Retract` of a later version removes it, even one still queued
    )


@dataclass(frozen=True)
class Retract:
    """What was said under ``tag`` to or about ``user_id`` (`Reply.tag`) is no longer true: remove it where it
    went (the person's private chat when ``private``, else the chat), and never send it if it still waits.

    "Open a private chat with me" once the person did (or left, or the game ended); "15 seconds left" once
    the turn it was about has passed. Nothing to do when nothing was said under the tag."""

    chat: str
    tag: str
    user_id: str
    private: bool = False
    version: int = 0  # as `Reply.version`: what was said under the tag before this version is removed


# `Reply.tag` values: the request to open the bot's private chat (the adapter may make one itself, after a
# refused hand), and the reminder of the turn clock.
OPEN_PRIVATE = "open_private"
TURN_REMINDER = "reminder"


@dataclass(frozen=True)
class Alert:
    """A short answer to the user who pressed a button (Telegram answerCallbackQuery, Discord ephemeral)."""

    user_id: str
    text: str
    show_alert: bool = False
    applied: bool = False  # set by the service: the press it answers was saved (the web page's "ok")
    rate_limited: bool = False  # set by the service: refused by the per-user limit, before any Redis call


Effect = ShowTable | ShowHand | Notice | Reply | Alert | Retract


class ShownVersions:
    """Per table (chat) and per hand (chat, user): the newest version already shown or queued.

    Two inputs of one chat handled at once (Discord interactions, a turn timer beside a press) may hand their
    effects to an adapter in the wrong order, and a screen older than one already on its way would put the
    table or a hand back to an older state: adapters ask `fresh` before showing one and drop it if not.

    A chat's versions only grow (the store keeps them when a game expires), through a lobby, its game and
    the next lobby, so versions are compared across game ids. Only a lower version under a game id never
    seen here is shown: the store counted again from scratch (its data was lost), so that is a new game and
    the count starts anew. In memory only, bounded by ``size`` screens."""

    def __init__(self, size: int = 20_000, games: int = 4) -> None:
        self.size = size
        self.games = games  # game ids remembered per screen: a lobby, its game, a closed table, the next
        self.newest: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {}

    def fresh(self, screen: ShowTable | ShowHand) -> bool:
        """False for a screen older than one already shown or queued (drop it); else True, remembered.

        An equal version is fresh (a "My hand" press shows the current hand again); so is version 0."""
        if not screen.version:
            return True
        key = (screen.chat, screen.user_id if isinstance(screen, ShowHand) else "")
        known = self.newest.pop(key, None)
        if known is None and len(self.newest) >= self.size:
            del self.newest[next(iter(self.newest))]  # the screen shown longest ago
        version, games = known or (0, ())
        if screen.version < version:
            if screen.game_id in games or not screen.game_id:  # a closed table starts no game
                self.newest[key] = (version, games)
                return False
            version, games = 0, ()  # a game id never seen here: the store's versions started again
        if screen.game_id not in games:
            games = (*games, screen.game_id)[-self.games :]
        self.newest[key] = (max(version, screen.version), games)
        return True
