"""The adapters' one door: the contract a chat platform provides to `durak-bot run`, and everything of
`bot/` and `storage/` an adapter may use, listed in `__all__` (tests/bot/test_adapter_contract.py fails on an
adapter importing any other module of either).

An adapter translates and delivers, nothing more (the rules and every decision are in `bot/`). To be served
it provides:

- a row in `SERVED_PLATFORMS` (`bot.platforms`): its platform id, the setting holding its token, where its
  code lives;
- an entry function, `RunPlatform`, that serves the platform until cancelled;
- a running `Adapter`: its platform id and the delivery of effects nobody's input asked for (turn
  deadlines, start-up catch-up), registered in the process's `Deliveries` once it can deliver.

It gets the `GameService` (every input goes to `service.handle`; what the stored games show between inputs
is asked of `service.queries`, which answers with what one viewer may see, a `Seen`, never a whole game),
a `MessageMemory`, the three store calls an adapter makes to remember which messages it edits and which
screens it delivered (never the whole store), and the process's `Readiness` and, on the service, its
`Metrics`. See docs/adapters.md for how to add a platform.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from bot import buttons, payloads
from bot.buttons import Move, OpenHand, Rematch, Replay
from bot.commands.table import (
    COMMANDS,
    DISCORD_NAME,
    NEWGAME,
    CommandSpec,
    OnDiscord,
    Place,
    Who,
    names_with,
    offered_in,
)
from bot.effects import (
    OPEN_PRIVATE,
    Alert,
    Button,
    Effect,
    Line,
    Message,
    Notice,
    Reply,
    Retract,
    ShowHand,
    ShownVersions,
    ShowTable,
    Span,
)
from bot.game.archive import Archived, ArchiveError
from bot.game.membership import MembershipCheck
from bot.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    TRANSLATED,
    Translator,
    normalise_language,
    translator,
)
from bot.inputs import Command, Input, Press, TimerDue, User
from bot.outbox import (
    SENDING,
    TABLE_SHOWN,
    DeliveredMarks,
    content_mark,
    flight_mark,
    hand_mark,
    owed_mark,
    said_mark,
    said_marks,
    screen_marks,
    spaced_mark,
    unsaid_mark,
    unsaid_version,
)
from bot.payloads import MAX_PAYLOAD_BYTES, Payload
from bot.platforms import DISCORD, LOCAL, SERVED_PLATFORMS, TELEGRAM, ServedPlatform
from bot.queries import FinalSeen, NotForYou, Seen, Sight
from bot.render.analysis import analysis_lines, analysis_state
from bot.render.clock import turn_length
from bot.render.hand import action_label, prompt, render_hand
from bot.render.hand_layout import TERMINAL_HAND
from bot.render.hand_status import own_result
from bot.render.lobby import render_lobby, seat_label
from bot.render.replay import replay_screens, replay_state
from bot.render.rules import rule_lines, rules_in_short
from bot.render.table import describe_event, render_table, waiting_for
from bot.render.text import line, message
from bot.runtime.ai_work import AnalysisJob
from bot.runtime.analyses import STARTS_PER_HOUR, Analyses, Busy, Person, Progress, computed
from bot.runtime.config import BotConfig
from bot.runtime.health import Readiness
from bot.runtime.logs import keep_secret
from bot.runtime.lru import LRU
from bot.runtime.metrics import Metrics
from bot.runtime.ratelimit import PressLimiter
from bot.self_play import self_play_service
from bot.service import GameService
from bot.session import Finished, Lobby, Playing, Seat, TableEvent
from bot.timers import Adapter, Deliver, Deliveries, resume_on_close, run_own_timers
from storage import ChatRef, RedisGameStore, presence
from storage.errors import StoreUnavailable
from storage.keys import LIVE_CHANNEL_PREFIX, live_channel
from storage.models import ChatRecord
from storage.pace import PaceLimit, ScreenTurn, SharedLimits

__all__ = [
    # the contract: what a platform provides and is given, and the process it runs in
    "SERVED_PLATFORMS", "ServedPlatform", "TELEGRAM", "DISCORD", "LOCAL", "RunPlatform", "Adapter",
    "Deliveries", "Deliver", "run_own_timers", "resume_on_close", "MessageMemory", "BotConfig", "Readiness",
    "Metrics", "keep_secret",
    # what goes in: inputs, the press vocabulary (buttons and their payloads), a platform's membership
    # check, the command table
    "Command", "Input", "Press", "TimerDue", "User", "ChatRef", "buttons", "payloads", "Payload",
    "MAX_PAYLOAD_BYTES", "Move", "OpenHand", "Rematch", "Replay", "MembershipCheck", "COMMANDS",
    "CommandSpec", "DISCORD_NAME", "NEWGAME", "OnDiscord", "Place", "Who", "names_with", "offered_in",
    # the service and its read side: what one viewer may see of a stored game (never the game itself)
    "GameService", "Seen", "FinalSeen", "Sight", "NotForYou", "Lobby", "Playing", "Finished", "Seat",
    "TableEvent", "Archived", "ArchiveError", "StoreUnavailable",
    # what comes out: the effects, and the marks of what was delivered
    "Effect", "Alert", "Notice", "Reply", "Retract", "ShowHand", "ShowTable", "ShownVersions", "Message",
    "Line", "Span", "Button", "OPEN_PRIVATE", "DeliveredMarks", "SENDING", "TABLE_SHOWN", "content_mark",
    "flight_mark", "hand_mark", "owed_mark", "said_mark", "said_marks", "screen_marks", "spaced_mark",
    "unsaid_mark", "unsaid_version",
    # the words, in every language
    "Translator", "translator", "TRANSLATED", "LANGUAGES", "LANGUAGE_NAMES", "DEFAULT_LANGUAGE",
    "normalise_language",
    # the renderers the web page and the terminal draw with, so they say what the chats say
    "line", "message", "render_table", "describe_event", "waiting_for", "render_hand", "action_label",
    "prompt", "TERMINAL_HAND", "own_result", "render_lobby", "seat_label", "rule_lines", "rules_in_short",
    "turn_length", "analysis_lines", "analysis_state", "replay_screens", "replay_state",
    # a finished game's analysis (in the AI workers) and a game the AI plays alone (the terminal demo)
    "Analyses", "AnalysisJob", "Busy", "Person", "Progress", "STARTS_PER_HOUR", "computed",
    "self_play_service",
    # what an adapter keeps through the store, beside its messages: the token's shared pacing, the pages
    # open per chat, the channel saved changes are published on; the store for a process of its own
    "PaceLimit", "ScreenTurn", "SharedLimits", "presence", "live_channel", "LIVE_CHANNEL_PREFIX",
    "RedisGameStore",
    # small tools of a long-lived process
    "LRU", "PressLimiter",
]  # fmt: skip


class MessageMemory(Protocol):
    """The store as an adapter sees it. A chat's ``messages`` hash holds the ids of the messages the adapter
    edits ("table", "hand:<user>") and the screens it delivered (`bot.outbox`); it expires with the game.
    `storage.store.GameStore` provides these calls."""

    async def load(self, chat: ChatRef) -> ChatRecord:
        """The chat's record: its ``messages`` and ``lang`` are what an adapter reads."""
        ...

    async def set_messages(self, chat: ChatRef, updates: dict[str, str | None]) -> None:
        """Set (a string) or delete (None) fields of the chat's ``messages`` hash."""
        ...

    async def migrate_chat(self, old: ChatRef, new: ChatRef) -> None:
        """The platform moved a chat to a new id (a Telegram group upgraded to a supergroup)."""
        ...


class RunPlatform(Protocol):
    """The entry function `durak-bot run` calls for each platform whose token is set, all in one process on
    one service. It builds the platform's `Adapter`, connects, then joins the process's turn-timer loop,
    ``deliveries.join(adapter)`` (not before it can deliver), serves
    until cancelled (Ctrl-C, SIGTERM), and on the way out unregisters and lets queued messages go out for a
    few seconds (``deliveries.leave(adapter)``). A token the platform refuses raises the exception named in
    its `ServedPlatform`.
    ``store`` is the full store, passed on to the adapter as the `MessageMemory` it needs. ``live`` is the
    Redis client saved changes are published on (`storage.keys.live_channel`), for a platform that serves
    the web front end's pages beside it (Telegram's Mini App); the others ignore it. ``readiness`` is the
    process's checks, answered (``/readyz``) by the platform whose server holds PORT (Telegram's)."""

    def __call__(
        self,
        config: BotConfig,
        service: GameService,
        store: MessageMemory,
        deliveries: Deliveries,
        /,
        *,
        live: Any = None,
        readiness: Readiness | None = None,
    ) -> Awaitable[None] | None: ...
