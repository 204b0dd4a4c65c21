"""What a decision may depend on besides the record: the chat, the clock reading, new ids, seeds and salts.

Passing these in keeps `bot.game.lobby` and `bot.game.moves` pure and lets tests and golden transcripts fix
them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.ai_seats import INLINE, AiAnswers
from bot.commands.table import spelled
from bot.i18n import Translator, translator
from bot.platforms import writes_first
from bot.render.hand_layout import HandLayout, hand_layout
from core.commitment import new_salt as secret_salt
from storage import ChatRef
from storage.models import ChatRecord


@dataclass(frozen=True)
class ServiceConfig:
    start_wait: float = 60.0  # after this many seconds anyone in the lobby may press Start
    ai_delay: float = 1.2  # an AI seat waits this long before moving (0: it moves at once)
    reminder_before: float = 15.0  # remind a player this many seconds before their turn times out
    clock_refresh: tuple[float, ...] = (30.0, 10.0)  # seconds left at which the acting hand is drawn again
    announce_after: float = 10.0  # a turn coming this long after the player's last move is announced
    max_inline_ai_moves: int = 2000  # with ai_delay 0, a safety bound on AI moves in one input
    app_platforms: frozenset[str] = frozenset()  # platforms whose chats offer the web app (app_screens)


def spelled_in(chat: ChatRef, command: str) -> str:
    """``command`` as ``chat``'s platform offers it (`bot.commands.table.spelled`): ``/durak new`` on Discord."""
    return spelled(command, chat.platform)


@dataclass(frozen=True)
class Context:
    chat: ChatRef
    record: ChatRecord
    now: float
    new_id: Callable[[], str]
    new_seed: Callable[[], int]
    config: ServiceConfig
    ai: AiAnswers = INLINE  # AI moves and hints worked out ahead, off the event loop (`bot.runtime.ai_pool`)
    # a deal's secret salt (`core.commitment`): 128 bits of the system's randomness in play, fixed in tests;
    # None: the game is not sealed (`durak-bot demo`, whose seed prints the same game every time)
    new_salt: Callable[[], str | None] = secret_salt

    @property
    def chat_id(self) -> str:
        return self.chat.chat_id

    @property
    def chat_lang(self) -> str:
        return self.record.lang or "en"

    @property
    def hand_layout(self) -> HandLayout:
        """How this chat's hands are seen: the terminal draws them under the table, without buttons."""
        return hand_layout(self.chat.platform)

    @property
    def writes_first(self) -> bool:
        """The bot may write first to someone on this chat's platform who never wrote to it
        (`bot.platforms.ServedPlatform.writes_first`)."""
        return writes_first(self.chat.platform)

    @property
    def opens_app(self) -> bool:
        """This chat's table and hands offer the web app ("Open table"): its platform has one configured."""
        return self.chat.platform in self.config.app_platforms

    def spelled(self, command: str) -> str:
        """``command`` as this chat's platform offers it, for a reply to name: ``/durak new`` on Discord."""
        return spelled_in(self.chat, command)

    def tr(self, lang: str | None = None) -> Translator:
        return translator(lang or self.chat_lang)
