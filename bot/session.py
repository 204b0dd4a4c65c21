"""What the service stores for one chat: an open lobby, a running game, or the last finished game.

The store keeps it as one string: a small JSON header (seats, ids, timers, recent events) and, for a game,
``Game.to_json()`` on the next line, so the engine state is never escaped inside another JSON document.

Both parts carry a format version: the header's ``format`` (`SESSION_FORMAT`; a header without one is format
1, as the first releases wrote it) and the game's (`core.serialize.FORMAT_VERSION`). A release loads its own
format and the one before it, and refuses a newer one (`bot.runtime.unusable` then sets the record aside), so
a deploy can roll forward while games run, and a rollback loses only the games the newer release started.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from core import Game, Settings

AI_LEVELS = ("easy", "normal", "hard")
MAX_SEATS = 6  # players at one table, whatever the deck
SESSION_FORMAT: Final = 1


class Seat(BaseModel):
    """A place at the table: a person, or an AI (``ai`` is its level)."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    name: str
    lang: str = "en"
    ai: str | None = None
    team: int | None = None  # team games: the side picked in the lobby (0 or 1), None until seated
    timeouts: int = 0  # turn timeouts in a row
    autopilot: bool = False  # after two timeouts the AI plays the seat until its owner taps again
    acted_at: float = 0.0  # when this seat last moved or was dealt in: a turn soon after is not announced
    # since when their platform cannot send them private messages (`bot.game.private_chat`); not stored while
    # None
    private_closed_at: float | None = Field(default=None, exclude_if=lambda value: value is None)
    # a person's rating (mu, sigma) in the chat's season as the game started (`bot.ratings`); not stored
    # while None (lobbies, AI seats, games started before ratings existed)
    rating: tuple[float, float] | None = Field(default=None, exclude_if=lambda value: value is None)

    @property
    def is_ai(self) -> bool:
        return self.ai is not None

    @property
    def played_by_ai(self) -> bool:
        return self.ai is not None or self.autopilot

    @property
    def left_to_ai(self) -> bool:
        """A person's seat the AI plays for them (after two timeouts). Once the seat is out it is never taken
        back (`bot.game.moves`), so at the end of a game this names exactly the seats their owner did not
        finish, which count as played and no more (rules.md §9.6)."""
        return self.ai is None and self.autopilot


class TableEvent(BaseModel):
    """Something the whole table saw, kept for the "last actions" lines of the table."""

    model_config = ConfigDict(frozen=True)

    kind: str  # played, threw_in, covered, transferred, took, beaten_off, out, exchanged, timeout, surrendered, ...
    seat: int = -1
    card: str = ""
    target: str = ""  # covered card, or the new defender's seat for a transfer
    count: int = 0


class Stored(BaseModel):
    """What every header starts with: the session format it was written in (only formats this release reads
    validate; anything newer is refused)."""

    format: Literal[1] = SESSION_FORMAT


class Lobby(Stored):
    kind: Literal["lobby"] = "lobby"
    lobby_id: str
    creator: str  # user id
    words: str  # the rules words, canonical (Settings.to_words())
    seats: list[Seat] = Field(default_factory=list)
    created_at: float
    chat_title: str = ""
    lang: str = "en"
    thread_id: str = ""  # forum topic the lobby was opened in (Telegram)

    @property
    def capacity(self) -> int:
        """The seats its rules have room for: at most six, and only as many as the deck gives six cards to."""
        return min(MAX_SEATS, Settings.from_words(self.words).deck // 6)


class Playing(Stored):
    kind: Literal["game"] = "game"
    game_id: str
    creator: str
    seats: list[Seat]
    chat_title: str = ""
    lang: str = "en"
    thread_id: str = ""
    started_at: float
    season: int = Field(default=1, exclude_if=lambda value: value == 1)  # the chat's season at the start
    # the lobby it started from: a page opened from that lobby's link by someone not seated is offered to
    # watch (adapters/web/state.py); not stored while empty (games started before it was kept)
    lobby_id: str = Field(default="", exclude_if=lambda value: not value)
    turn_deadline: float | None = None  # when the seat to act times out
    turn_step: int = -1  # the game step the deadline belongs to
    reminded: bool = False
    clock_mark: float | None = None  # the seconds-left mark of this turn handled last (refresh, reminder)
    clock_left: float | None = (
        None  # seconds left as the acting hand last showed them (None: the turn's length)
    )
    events: list[TableEvent] = Field(default_factory=list)
    # the deal's commitment, shown from the start, and its secret salt, revealed with the result
    # (`core.commitment`, docs/fairness.md); empty for games started before deals were committed
    deal_commitment: str = Field(default="", exclude_if=lambda value: not value)
    deal_salt: str = Field(default="", exclude_if=lambda value: not value)


class Finished(Stored):
    kind: Literal["finished"] = "finished"
    game_id: str
    creator: str
    seats: list[Seat]
    words: str
    chat_title: str = ""
    lang: str = "en"
    thread_id: str = ""
    # the deal as sealed and revealed (`core.commitment`): shown to whoever presses the result's "The deal"
    # (`bot.game.finish.deal_shown`), never in the group; empty for a game without a seal
    deal_commitment: str = Field(default="", exclude_if=lambda value: not value)
    deal_salt: str = Field(default="", exclude_if=lambda value: not value)
    deal_order: str = Field(default="", exclude_if=lambda value: not value)


Header = Lobby | Playing | Finished


@dataclass(frozen=True, slots=True)
class ChatSession:
    """The decoded record: the header, and the engine state while a game runs.

    A plain dataclass, not a model: both parts are validated already (the header by pydantic, the game by
    the engine), and one is built for every input."""

    header: Header
    game: Game | None = None
    # Not stored: each person's hand message as drawn for this very header and game, by (seat, language).
    # `bot.game.screens.screen_changes` fills it, and reads it back when this session is the "before" of the
    # next
    # input in the same process (see `bot.service.RecentStates`), instead of drawing every old hand again.
    _hands: dict[tuple[int, str], Any] = field(default_factory=dict, compare=False, repr=False)

    def encode(self) -> str:
        head = self.header.model_dump_json(exclude_defaults=False)
        return head if self.game is None else head + "\n" + self.game.to_json()

    @staticmethod
    def decode(text: str) -> ChatSession:
        head, _, game_json = text.partition("\n")
        header = _HEADER.validate_json(head)
        return ChatSession(header=header, game=Game.from_json(game_json) if game_json else None)


_HEADER: TypeAdapter[Header] = TypeAdapter(Annotated[Header, Field(discriminator="kind")])
