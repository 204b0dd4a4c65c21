"""The game service: an input in, the effects out. Loads the chat, decides, saves atomically, retries.

This is the write side, the only place that saves a chat's game; its read side, `service.queries`
(`bot.queries`), answers what adapters ask of the stored games between inputs. Deciding is pure
(`bot.game.lobby`, `bot.game.moves`); a save is a compare-and-set on the chat's version, so two processes or a
double tap can never apply one move twice: the loser reloads, and a move that is no longer legal is refused
with an alert.
"""

from __future__ import annotations

import logging
import secrets
import string
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bot import buttons, payloads
from bot.ai_seats import OFF_LOOP
from bot.commands.handlers import handler_for
from bot.context import Context, ServiceConfig
from bot.decision import Decision, show
from bot.effects import Alert, Effect, Reply, Retract, ShowHand, ShowTable
from bot.game import app_screens, catch_up, moves, private_chat
from bot.game.membership import MembershipCheck, refused_join
from bot.game.presses import route_press
from bot.i18n import translator
from bot.inputs import Command, Input, Press, TimerDue
from bot.queries import GameQueries
from bot.render.text import line, message
from bot.runtime import unusable
from bot.runtime.analyses import Analyses
from bot.runtime.metrics import Metrics
from bot.runtime.ratelimit import PressLimiter
from bot.session import ChatSession, Playing
from core.commitment import new_salt
from core.deal import new_seed
from storage import ChatRef
from storage.errors import StoreUnavailable
from storage.models import ChatRecord, SaveRequest
from storage.store import GameStore

if TYPE_CHECKING:
    from bot.runtime.ai_pool import AiPool, Prepare

log = logging.getLogger("durak.service")
actions_log = logging.getLogger("durak.actions")  # one line per applied input (see bot/runtime/logs.py)

MAX_ATTEMPTS = 8
_ID_ALPHABET = string.digits + string.ascii_lowercase


def new_short_id() -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(8))


class RecentStates:
    """Per chat, the record this process saved last: its exact state text and the session it encodes.

    A chat's next input in this process usually finds exactly that state, and then decoding it again (and
    drawing its hands again, see `ChatSession._hands`) is skipped. Decoding is a pure function of the text and
    sessions are never changed in place, so a hit gives what decoding would. Only successful saves are
    remembered; any other text (another process moved the game) is decoded as usual.

    For a running game the record also stands in for the load itself (`running_game`): the service decides on
    it and saves with its version, and the store's compare-and-set proves it was still the stored one."""

    def __init__(self, size: int = 2048) -> None:
        self.size = size
        self.items: dict[ChatRef, tuple[ChatRecord, ChatSession]] = {}

    def session(self, chat: ChatRef, state: str | None) -> ChatSession | None:
        if not state:
            return None
        known = self.items.get(chat)
        if known is not None and known[0].state == state:
            return known[1]
        return unusable.decoded(state)  # raises unusable.Unreadable

    def running_game(self, chat: ChatRef) -> ChatRecord | None:
        """The record last saved here when it holds a running game (whose moves read nothing else from it)."""
        known = self.items.get(chat)
        if known is None or not isinstance(known[1].header, Playing):
            return None
        return known[0]

    def remember(self, chat: ChatRef, record: ChatRecord | None, session: ChatSession | None) -> None:
        self.items.pop(chat, None)
        if record is None or record.state is None or session is None or self.size <= 0:
            return
        if len(self.items) >= self.size:
            del self.items[next(iter(self.items))]  # the chat saved longest ago
        self.items[chat] = (record, session)


class GameService:
    """Platform-neutral: the Telegram, Discord and terminal adapters all drive this one class."""

    def __init__(
        self,
        store: GameStore,
        config: ServiceConfig | None = None,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = new_short_id,
        seed_source: Callable[[], int] = new_seed,
        salt_source: Callable[[], str | None] = new_salt,
        limiter: PressLimiter | None = None,
        ai: AiPool | None = None,
        hint_limiter: PressLimiter | None = None,
        commands: PressLimiter | None = None,
        on_app: app_screens.OnApp | None = None,
        metrics: Metrics | None = None,
        analyses: Analyses | None = None,
    ) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.clock = clock
        self.new_id = new_id
        self.seed_source = seed_source
        self.salt_source = salt_source  # each deal's secret salt; None: deals not sealed (`bot.self_play`)
        self.recent = RecentStates()
        self.queries = GameQueries(store, self.recent)  # the read side, for adapters (`bot.queries`)
        self.limiter = limiter  # `durak-bot run` sets one; tests and the terminal press as fast as they like
        self.ai = ai  # `durak-bot run`: AI moves and /hint in worker processes, never on the event loop
        self.hint_limiter = hint_limiter  # `durak-bot run`: /hint per user (each costs a worker ~160 ms)
        self.commands = commands  # `durak-bot run`: typed commands per user (`ratelimit.command_limiter`)
        self.on_app = on_app  # who has the web app open (the web adapter): chat screens held back for them
        self.metrics = metrics or Metrics()  # what this process counts; adapters count their API calls on it
        # finished games' analyses, computed in the AI workers (half of them at most) for the replay page
        self.analyses = analyses or (
            Analyses(store, ai.offload, max_running=max(1, ai.workers // 2)) if ai is not None else None
        )

    async def handle(self, event: Input, membership: MembershipCheck | None = None) -> list[Effect]:
        """Everything the audiences should now see after ``event``; never raises for bad input.

        ``membership``: how the adapter's platform says whether a person is in a chat (Telegram's
        getChatMember). A press made outside the chat itself (the page, a deep link: `Press.from_app`,
        `Press.through_private`) that would seat its presser is refused unless it says yes
        (`bot.game.membership`); without it, such presses are taken as the chat's own."""
        try:
            if isinstance(event, Command):
                return await self._command(event)
            if isinstance(event, Press):
                return await self._press(event, membership)
            return await self._timer(event)
        except StoreUnavailable:
            log.warning("store unavailable while handling %s", type(event).__name__)
            self.metrics.refused(event.platform, "unavailable")
            return unavailable(event)

    async def catch_up(self, chat: ChatRef) -> list[Effect]:
        """The screens of ``chat``'s running game that its players may not have (`bot.game.catch_up`), drawn
        from the stored state; a turn deadline passed meanwhile is moved on first. Raises StoreUnavailable."""
        return await self._decide(chat, catch_up.catch_up, "recover")

    async def private_chat(self, chat: ChatRef, user_id: str, is_open: bool) -> list[Effect]:
        """An adapter's report that a person can (``is_open``) or cannot receive private messages, so the
        lobby marks their seat and a game holds their clock (`bot.game.private_chat`). A Redis outage loses only
        the report: the next refused message reports it again."""
        try:
            return await self._decide(
                chat,
                lambda ctx, session: private_chat.private_chat(ctx, session, user_id, is_open),
                "private_chat",
            )
        except StoreUnavailable:
            log.warning("store unavailable: private chat of %s in %s not recorded", user_id, chat)
            return []

    async def app_closed(self, chat: ChatRef, user_id: str) -> list[Effect]:
        """A person closed their last page of ``chat``: what the chat held back for them while it was open
        (`bot.game.app_screens.resumed`), unless they still have a page open elsewhere. Raises StoreUnavailable."""
        if await self._pages_open(chat, user_id):
            return []
        return await self._decide(
            chat, lambda ctx, session: app_screens.resumed(ctx, session, user_id), "app_closed"
        )

    async def handle_timer(self, due: TimerDue) -> list[Effect]:
        """As `handle` for a deadline, but a Redis outage raises StoreUnavailable: the timer loop then
        leaves the deadline claimed, and it fires again after its lease instead of being lost."""
        return await self._timer(due)

    # ---- inputs ------------------------------------------------------------------------------------

    async def _command(self, command: Command) -> list[Effect]:
        chat = ChatRef(command.platform, command.chat_id)
        name, user = command.name.lower(), command.user
        if self.commands is not None and not self.commands.allow(chat.platform, user.id):
            # before any Redis call; an alert reaches only the sender, never the group
            self.metrics.refused(chat.platform, "rate_limited")
            return [Alert(user.id, translator(user.lang)._("Too many commands: wait a moment."))]
        return await handler_for(name)(self, command)

    async def decide_command(
        self,
        command: Command,
        decide: Callable[[Context, ChatSession | None, Command], Decision],
        prepare: Prepare | None = None,
    ) -> list[Effect]:
        """A command's handler deciding on the chat's stored record (`bot.commands.handlers`)."""
        return await self._decide(
            ChatRef(command.platform, command.chat_id),
            lambda ctx, session: decide(ctx, session, command),
            "/" + command.name.lower(),
            prepare=prepare,
        )

    async def _press(self, press: Press, membership: MembershipCheck | None) -> list[Effect]:
        if self.limiter is not None and not self.limiter.allow(press.platform, press.user.id):
            text = translator(press.user.lang)._("Too many presses: wait a moment.")
            self.metrics.refused(press.platform, "rate_limited")
            return [Alert(press.user.id, text, rate_limited=True)]
        payload = payloads.parse(press.payload)
        if payload is None:
            return [
                Alert(
                    press.user.id, translator(press.user.lang)._("That button is not valid."), show_alert=True
                )
            ]
        chat = ChatRef(press.platform, payload.chat_id)
        if press.from_app or press.through_private:  # from outside the chat: a seat needs a member
            refused = await refused_join(membership, chat, press.user, payload.button)
            if refused:
                return refused

        def decide(ctx: Context, session: ChatSession | None) -> Decision:
            return route_press(ctx, session, press.user, payload)

        return await self._decide(
            chat,
            private_chat.opened_first(decide, press.user.id) if press.through_private else decide,
            buttons.code(payload.button),
            from_memory=True,
            on_page=press.user.id if press.from_app else None,
        )

    async def _timer(self, due: TimerDue) -> list[Effect]:
        chat = ChatRef(due.platform, due.chat_id)

        def decide(ctx: Context, session: ChatSession | None) -> Decision:
            if (
                ctx.record.version != due.version
                or session is None
                or not isinstance(session.header, Playing)
            ):
                return show()  # the game moved on since the timer was set
            return moves.on_timer(ctx, session)

        prepare = self.ai.for_timer(due.version) if self.ai is not None else None
        return await self._decide(chat, decide, "timer", from_memory=True, prepare=prepare)

    # ---- load, decide, save ------------------------------------------------------------------------

    async def _decide(
        self,
        chat: ChatRef,
        decide: Callable[[Context, ChatSession | None], Decision],
        action: str = "",
        *,
        from_memory: bool = False,
        prepare: Prepare | None = None,
        on_page: str | None = None,
    ) -> list[Effect]:
        """Load, decide, save; on a conflict decide again on the record the save returned.

        ``from_memory`` (moves and deadlines): when this process saved the chat's running game last, decide on
        that record without loading it, one round trip instead of two. Only a save can confirm such a
        decision, so one that saves nothing (a refusal) is made again on the loaded record.

        ``prepare`` works out AI moves or hints off the event loop first (`bot.runtime.ai_pool`); with a pool,
        no decision works out an AI move itself.

        ``on_page``: the input is a press of this person's web app page. A refusal then shows the chat
        nothing they would not be shown were it saved, counting them on the app: their page shows them the
        refusal and the game, and their chat hand stays paused (a refused stale press, docs/webapp.md)."""
        begin = time.perf_counter()
        # what `bot.runtime.unusable` tells the chat about a stored record it had to repair
        notes: list[Effect] = []
        record = self.recent.running_game(chat) if from_memory else None
        confirmed = record is None
        if record is None:
            record = await unusable.loaded(self.store, chat, notes)
        for _attempt in range(MAX_ATTEMPTS):
            ctx = Context(
                chat,
                record,
                self.clock(),
                self.new_id,
                self.seed_source,
                self.config,
                new_salt=self.salt_source,
            )
            try:
                session = self.recent.session(chat, record.state)
            except unusable.Unreadable as problem:
                record, confirmed = await unusable.set_aside(self.store, chat, record, problem, notes), True
                continue
            if self.ai is not None:
                answers = await prepare(ctx, session) if prepare is not None else OFF_LOOP
                ctx = replace(ctx, now=self.clock(), ai=answers)
            decision = decide(ctx, session)
            if not decision.save:
                if not confirmed:
                    record, confirmed = await unusable.loaded(self.store, chat, notes), True
                    continue
                effects = decision.effects
                if on_page is not None:
                    effects = await self._held_back(
                        chat, effects, session, also_on_app=on_page, before=session
                    )
                return notes + stamped(effects, record.version)  # drawn from the stored record
            request = decision.save_request(
                record.version,
                request_id=secrets.token_hex(8),  # a lost reply is asked about, not reported as an outage
                state_must_exist=not confirmed,
            )
            saved = await self.store.save_or_current(chat, request)
            if isinstance(saved, int):
                self.recent.remember(chat, saved_record(record, saved, request), decision.session)
                self._applied(chat, saved, action, decision, time.perf_counter() - begin)
                effects = await self._held_back(chat, decision.effects, decision.session, before=session)
                return notes + stamped(marked_applied(effects), saved)
            log.info("chat=%s version=%s conflict, deciding again", chat, record.version)
            record, confirmed = await unusable.with_usable_defaults(self.store, chat, saved, notes), True
        return notes + [Alert("", translator(None)._("The table is busy, try again."))]

    async def _held_back(
        self,
        chat: ChatRef,
        effects: list[Effect],
        session: ChatSession | None,
        also_on_app: str | None = None,
        before: ChatSession | None = None,
    ) -> list[Effect]:
        """Effects without the chat screens people on the web app do not need (``session``: the chat as they
        leave it, ``before``: as they found it, when they changed it); ``also_on_app`` is on the app whatever
        the open pages say (their press came from it)."""
        if not app_screens.holds_back(effects):
            return effects
        on_app: set[str] = set() if also_on_app is None else {also_on_app}
        if self.on_app is not None and chat.platform in self.config.app_platforms:
            try:
                on_app.update(await self.on_app(chat))
            except Exception:  # who is on the app is only a saving: every screen goes out without it
                log.warning("chat=%s: open pages unknown, every screen sent", chat, exc_info=True)
                if also_on_app is None:
                    return effects
        return app_screens.thinned(effects, session, on_app, before)

    async def _pages_open(self, chat: ChatRef, user_id: str) -> bool:
        if self.on_app is None:
            return False
        try:
            return user_id in await self.on_app(chat)
        except Exception:
            log.warning("chat=%s: open pages unknown", chat, exc_info=True)
            return False

    def _applied(self, chat: ChatRef, version: int, action: str, decision: Decision, seconds: float) -> None:
        kind = "timer" if action in ("timer", "recover") else "command" if action.startswith("/") else "press"
        self.metrics.applied(chat.platform, kind, seconds)
        if actions_log.isEnabledFor(logging.INFO):
            header = decision.session.header if decision.session is not None else None
            game = getattr(header, "game_id", None) or getattr(header, "lobby_id", "")
            fields = {
                "platform": chat.platform, "chat": chat.chat_id, "game": game, "version": version,
                "action": action, "ms": round(seconds * 1000, 2),
            }  # fmt: skip
            actions_log.info("applied", extra={"fields": fields})


def saved_record(before: ChatRecord, version: int, request: SaveRequest) -> ChatRecord:
    """The chat's record as a successful save of ``request`` left it (message ids and settings as loaded)."""
    last_durak = request.last_durak_after(before.last_durak)
    return replace(before, version=version, state=request.state, last_durak=last_durak)


def stamped(effects: list[Effect], version: int) -> list[Effect]:
    """The effects with each table and hand marked with the chat version it shows, so an adapter can drop
    one that reaches it after a newer one (`ShownVersions`); so too what is said for a while (`Reply.tag`)
    and its retraction (`Retract`). In place: the decision is not used again."""
    for index, effect in enumerate(effects):
        if isinstance(effect, ShowTable | ShowHand | Retract) or (isinstance(effect, Reply) and effect.tag):
            effects[index] = replace(effect, version=version)
    return effects


def marked_applied(effects: list[Effect]) -> list[Effect]:
    """A saved decision's effects with its answers to the presser marked `Alert.applied`: whether a press
    changed the chat cannot be read from the chat's version (another input may save at the same instant)
    nor from an answer's text ("You joined." is said with a change, "You are already in." without one)."""
    return [replace(effect, applied=True) if isinstance(effect, Alert) else effect for effect in effects]


def unavailable(event: Input) -> list[Effect]:
    user = event.user if isinstance(event, Command | Press) else None
    text = translator(user.lang if user else None)._(
        "The game service is unavailable, try again in a moment."
    )
    if isinstance(event, Press):
        return [Alert(event.user.id, text, show_alert=True)]
    if isinstance(event, Command):
        return [Reply(event.chat_id, message([line(text)]))]
    return []
