"""The read side: what a chat's stored game shows now, asked without deciding or saving anything.

`GameService.handle` is the write side (an input in; a decision saved with compare-and-set; each audience's
effects out). Between inputs the adapters ask questions of the stored game: the web page's state and who may
see it, the terminal's screen when it comes back to a game, why a typed card cannot be played, a finished
game's last position, an archived game for its replay. They are answered here, from the same store and the
service's cache of decoded states, so no adapter loads or decodes a record itself.

What an adapter is given is what its viewer may see (`Seen`): the chat's header with its secret blanked
(the deal's salt, until the end), the table as everyone sees it, the viewer's own seat's view (`core.View`),
and a finished game's result: never a `core.Game`, so no adapter can draw another seat's cards
(docs/adapters.md). `Snapshot`, the whole stored session, stays inside the bot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from bot.ai_seats import choose_ai_action
from bot.effects import Message
from bot.game.archive import Archived, ArchiveError, FinalGame, final_position, finished_by_ai, result_message
from bot.game.seats import seat_of
from bot.i18n import translator
from bot.render.refusal import refusal_text
from bot.runtime.lru import LRU
from bot.runtime.unusable import Unreadable
from bot.session import ChatSession, Finished, Header, Lobby, Playing, TableEvent
from core import Action, Card, View
from core.events import Result
from core.reasons import why_card_unplayable
from storage import ChatRef
from storage.store import GameStore

log = logging.getLogger("durak.queries")

FINAL_GAMES = 64  # finished games' last positions kept per process (each a replay of its archive)
ARCHIVES = 256  # archived games' records kept per process (~3 KiB each): an archive never changes


class DecodedStates(Protocol):
    """The service's cache of decoded states (`bot.service.RecentStates`): a hit skips decoding again."""

    def session(self, chat: ChatRef, state: str | None) -> ChatSession | None: ...


class Sight(Enum):
    """What a viewer holding a ref to one lobby or game of a chat is shown of the chat now."""

    HIDDEN = "hidden"  # nothing: the ref names no game of this chat they may see
    SHOWN = "shown"  # the chat's current lobby or game, as their seat (or a spectator) sees it
    STARTED = "started"  # the lobby they opened started without them: offered the game's ref to watch


class NotForYou(Enum):
    """Why an archived game is not given to someone asking for it."""

    NOT_ARCHIVED = "not archived"  # unknown, older than 30 days, unreadable, or another chat's game
    NOT_A_PLAYER = "not a player"  # in the archive, but they did not play it


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A chat as stored now: its version, its decoded session and its language setting."""

    version: int
    session: ChatSession | None  # None: nothing stored, or a record this release cannot read
    lang: str | None = None  # the chat's language setting (/settings lang=)
    unreadable: bool = False  # a record was stored but does not decode (the service sets it aside)
    final: FinalGame | None = None  # a finished game's last position, when asked for and archived

    def seat(self, user_id: str) -> int | None:
        """The seat of a person (never an AI seat) in the chat's lobby or game."""
        return seat_of(self.session.header, user_id) if self.session is not None else None

    def sight(self, game_id: str, user_id: str) -> Sight:
        """What ``user_id``, holding a ref to ``game_id`` ("": the chat's current one), may be shown
        (`may_see`, `watch_offered`)."""
        if self.session is None:
            return Sight.HIDDEN
        game_id = game_id or session_id(self.session)
        if may_see(self.session, game_id, user_id):
            return Sight.SHOWN
        if watch_offered(self.session, game_id, user_id):
            return Sight.STARTED
        return Sight.HIDDEN


@dataclass(frozen=True, slots=True)
class FinalSeen:
    """A finished game's last position as one viewer may see it, and its result in their language."""

    view: View
    events: list[TableEvent]
    result: Result
    result_message: Message  # the result as the chat showed it (`bot.game.archive.result_message`)
    by_ai: frozenset[int]  # the seats the AI finished for their owners (rules.md §9.6)


@dataclass(frozen=True, slots=True)
class Seen:
    """What one viewer may see of a chat now: no `core.Game`, no other seat's cards (docs/adapters.md)."""

    version: int
    sight: Sight
    header: Header | None  # None: nothing stored, or a record this release cannot read
    seat: int | None  # the viewer's seat (never an AI seat's); None for a spectator
    lang: str | None = None  # the chat's language setting (/settings lang=)
    unreadable: bool = False
    public: View | None = None  # a running game's table, as everyone sees it
    own: View | None = None  # a running game as the viewer's seat sees it; the spectator's view without one
    final: FinalSeen | None = None  # a finished game's last position, when asked for and archived

    @property
    def ref_id(self) -> str:
        """The id a ref to the chat's current lobby or game carries ("" when there is none)."""
        if self.header is None:
            return ""
        return self.header.lobby_id if isinstance(self.header, Lobby) else self.header.game_id


def seen_in(snapshot: Snapshot, chat_id: str, user_id: str, game_id: str = "", lang: str = "en") -> Seen:
    """What ``user_id`` (holding a ref to ``game_id``; "" asks for the current one) may see of ``snapshot``,
    the chat ``chat_id`` as stored (its id goes into the buttons of a finished game's result)."""
    session = snapshot.session
    if session is None:
        return Seen(snapshot.version, Sight.HIDDEN, None, None, snapshot.lang, snapshot.unreadable)
    sight = snapshot.sight(game_id, user_id)
    seat = snapshot.seat(user_id)
    header: Header = session.header
    if isinstance(header, Playing):
        header = header.model_copy(update={"deal_salt": ""})  # secret until the end (core.commitment)
    game = session.game
    public = game.view(None) if game is not None else None
    own = game.view(seat) if game is not None and seat is not None else public  # a spectator's is the public
    final = None
    ended = snapshot.final
    result = ended.game.result if ended is not None else None
    if ended is not None and result is not None and isinstance(header, Finished):
        # the chat keeps who sat where; the archive, whose seats the AI finished for them (rules.md §9.6)
        seats = [s.model_copy(update={"autopilot": n in ended.by_ai}) for n, s in enumerate(header.seats)]
        message = result_message(ended.game, seats, chat_id, header.game_id, translator(lang))
        assert message is not None  # the game has a result
        final = FinalSeen(ended.game.view(seat), ended.events, result, message, ended.by_ai)
    return Seen(snapshot.version, sight, header, seat, snapshot.lang, False, public, own, final)


def next_move(session: ChatSession | None, level: str) -> tuple[str, Action] | None:
    """Who must act in the chat's running game (their user id) and the move the AI of ``level`` picks for
    their seat (`bot.ai_seats.choose_ai_action`, from that seat's view); None when no game waits for a move."""
    header = session.header if session is not None else None
    game = session.game if session is not None else None
    if not isinstance(header, Playing) or game is None or game.to_act is None:
        return None
    seat = game.to_act
    return header.seats[seat].user_id, choose_ai_action(game, seat, level, header.game_id)


def session_id(session: ChatSession) -> str:
    """The id a ref to the chat's current lobby or game carries."""
    header = session.header
    return header.lobby_id if isinstance(header, Lobby) else header.game_id


def may_see(session: ChatSession, game_id: str, user_id: str) -> bool:
    """Whether a viewer holding a ref to ``game_id`` is shown the chat's current lobby or game: anyone who
    has its ref (it was shown in the chat) sees it; a ref to an older game of the chat shows the current one
    only to someone seated in it."""
    return session_id(session) == game_id or seat_of(session.header, user_id) is not None


def watch_offered(session: ChatSession, game_id: str, user_id: str) -> bool:
    """Whether ``game_id`` names the lobby the chat's running game started from, held by someone not seated
    in it (they opened the lobby's link): told that it started and offered its ref to watch, rather than
    that it is gone. A ref to any other older game of the chat still shows nothing."""
    header = session.header
    return (
        isinstance(header, Playing)
        and bool(header.lobby_id)
        and header.lobby_id == game_id
        and seat_of(header, user_id) is None
    )


class GameQueries:
    """Questions asked of the stored games; each raises StoreUnavailable when Redis does not answer."""

    def __init__(self, store: GameStore, recent: DecodedStates) -> None:
        self.store = store
        self.recent = recent
        self._finals: LRU[str, FinalGame | None] = LRU(FINAL_GAMES)
        self._archives: LRU[str, Archived] = LRU(ARCHIVES)

    async def snapshot(self, chat: ChatRef, *, final: bool = False) -> Snapshot:
        """The chat as stored now; ``final``: with a finished game's last position (`final_game`)."""
        record = await self.store.load(chat)
        try:
            session = self.recent.session(chat, record.state)
        except Unreadable:  # the service sets it aside at the chat's next input
            return Snapshot(record.version, None, record.lang, unreadable=True)
        last = None
        if final and session is not None and isinstance(session.header, Finished):
            last = await self.final_game(session.header.game_id)
        return Snapshot(record.version, session, record.lang, final=last)

    async def seen(self, chat: ChatRef, user_id: str, game_id: str = "", lang: str = "en") -> Seen:
        """What ``user_id`` may see of the chat now (`Seen`), a finished game's last position included."""
        return seen_in(await self.snapshot(chat, final=True), chat.chat_id, user_id, game_id, lang)

    async def seen_by(self, chat: ChatRef, viewers: list[tuple[str, str, str]]) -> list[Seen]:
        """`seen` for each of ``viewers`` (user id, game id their ref names, language), from one load. What a
        viewer sees depends on them only through their seat, sight and language, so viewers alike
        (spectators, one person's two pages) share one `Seen`, built once."""
        snapshot = await self.snapshot(chat, final=True)
        alike: dict[tuple[int | None, Sight, str], Seen] = {}
        seen = []
        for user_id, game_id, lang in viewers:
            key = (snapshot.seat(user_id), snapshot.sight(game_id, user_id), lang)
            if key not in alike:
                alike[key] = seen_in(snapshot, chat.chat_id, user_id, game_id, lang)
            seen.append(alike[key])
        return seen

    async def self_play_move(self, chat: ChatRef, level: str) -> tuple[str, Action] | None:
        """The person to act in the chat's game and the move the AI picks for them (`durak-bot demo`, which
        plays every seat: `next_move`); None when nobody is to act."""
        return next_move((await self.snapshot(chat)).session, level)

    async def final_game(self, game_id: str) -> FinalGame | None:
        """A finished game's last position, replayed from its archive (cached, absent ones too); None when
        the archive does not hold it or it does not replay."""
        if game_id in self._finals:
            return self._finals.touch(game_id)
        archived = await self.store.archived_game(game_id)
        found = None
        if archived is not None:
            try:
                game, events = final_position(archived)
                found = FinalGame(game, events, finished_by_ai(archived))
            except ArchiveError as error:
                log.warning("archived game %s does not replay: %s", game_id, error)
        self._finals[game_id] = found
        return found

    async def archived(self, game_id: str) -> Archived | None:
        """Where an archived game was played and who played it, read from its record (cached: an archive
        never changes); None when the archive does not hold it or it cannot be read."""
        found = self._archives.touch(game_id)
        if found is not None:
            return found
        record = await self.store.archived_game(game_id)
        if record is None:
            return None
        try:
            found = Archived.read(record)
        except ArchiveError as error:
            log.warning("archived game %s cannot be read: %s", game_id, error)
            return None
        self._archives[game_id] = found
        return found

    async def archived_for(self, chat: ChatRef, game_id: str, user_id: str) -> Archived | NotForYou:
        """An archived game for someone who played it, asking from its chat. Another chat's game is as if it
        were not there, so a ref does not tell whether a game of some other chat exists."""
        archived = await self.archived(game_id)
        if archived is None or archived.chat != str(chat):
            return NotForYou.NOT_ARCHIVED
        if not archived.may_watch(chat, user_id):
            return NotForYou.NOT_A_PLAYER
        return archived

    async def card_refusal(self, chat: ChatRef, user_id: str, card: Card) -> str | None:
        """Why ``user_id`` cannot play ``card`` in the chat's running game now, in their language (the
        reason a tap would get); None without a game, a seat or a reason."""
        snapshot = await self.snapshot(chat)
        session = snapshot.session
        header = session.header if session is not None else None
        game = session.game if session is not None else None
        seat = snapshot.seat(user_id)
        if not isinstance(header, Playing) or game is None or seat is None:
            return None
        refusal = why_card_unplayable(game, seat, card.id)
        if refusal is None:
            return None
        names = [s.name for s in header.seats]
        return refusal_text(refusal, names, translator(header.seats[seat].lang))
