"""The game service: an input in, the effects out. Loads the chat, decides, saves atomically, retries.

This is the only place that talks to the store. Deciding is pure (`bot.lobby`, `bot.play`); a save is a
compare-and-set on the chat's version, so two processes or a double tap can never apply one move twice:
the loser reloads, and a move that is no longer legal is refused with an alert.
"""

from __future__ import annotations

import logging
import secrets
import string
import time
from collections.abc import Callable
from dataclasses import replace

from bot import lobby as lobby_logic
from bot import metrics, payloads, play
from bot.context import Context, ServiceConfig
from bot.decision import Decision, show
from bot.effects import Alert, Effect, Reply, ShowHand, ShowTable
from bot.i18n import LANGUAGES, translator
from bot.inputs import Command, Input, Press, TimerDue, User
from bot.ratelimit import PressLimiter
from bot.render.rules import render_rules, settings_problem
from bot.render.summary import render_help, render_stats
from bot.render.text import line, message
from bot.session import ChatSession, Finished, Lobby, Playing
from core import Settings, SettingsError
from core.deal import new_seed
from core.settings import accepted_words
from storage.errors import StoreUnavailable
from storage.keys import ChatRef
from storage.models import ChatRecord
from storage.store import GameStore

log = logging.getLogger("durak.service")
actions_log = logging.getLogger("durak.actions")  # one line per applied input (see bot/logs.py)

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
        return ChatSession.decode(state)

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
        limiter: PressLimiter | None = None,
    ) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.clock = clock
        self.new_id = new_id
        self.seed_source = seed_source
        self.recent = RecentStates()
        self.limiter = limiter  # `durak-bot run` sets one; tests and the terminal press as fast as they like

    async def handle(self, event: Input) -> list[Effect]:
        """Everything the audiences should now see after ``event``; never raises for bad input."""
        try:
            if isinstance(event, Command):
                return await self._command(event)
            if isinstance(event, Press):
                return await self._press(event)
            return await self._timer(event)
        except StoreUnavailable:
            log.warning("store unavailable while handling %s", type(event).__name__)
            metrics.METRICS.refused(event.platform, "unavailable")
            return unavailable(event)

    async def handle_timer(self, due: TimerDue) -> list[Effect]:
        """As `handle` for a deadline, but a Redis outage raises StoreUnavailable: the timer loop then
        leaves the deadline claimed, and it fires again after its lease instead of being lost."""
        return await self._timer(due)

    # ---- inputs ------------------------------------------------------------------------------------

    async def _command(self, command: Command) -> list[Effect]:
        chat = ChatRef(command.platform, command.chat_id)
        name, user = command.name.lower(), command.user
        if name == "stats":
            record = await self.store.load(chat)
            rows = await self.store.stats(chat)
            return [Reply(chat.chat_id, render_stats(rows, translator(record.lang or user.lang)))]
        if name == "settings":
            return await self._settings(chat, command)
        if name == "help" or (name == "start" and command.private and not command.words):
            # Telegram sends /start when someone opens the bot's private chat; in a group it starts the lobby
            record = await self.store.load(chat)
            return [Reply(chat.chat_id, render_help(accepted_words(), translator(record.lang or user.lang)))]
        return await self._decide(
            chat, lambda ctx, session: self._route_command(ctx, session, command), "/" + name
        )

    async def _press(self, press: Press) -> list[Effect]:
        if self.limiter is not None and not self.limiter.allow(press.platform, press.user.id):
            text = translator(press.user.lang)._("Too many presses: wait a moment.")
            metrics.METRICS.refused(press.platform, "rate_limited")
            return [Alert(press.user.id, text)]
        payload = payloads.parse(press.payload)
        if payload is None:
            return [
                Alert(
                    press.user.id, translator(press.user.lang)._("That button is not valid."), show_alert=True
                )
            ]
        chat = ChatRef(press.platform, payload.chat_id)
        return await self._decide(
            chat,
            lambda ctx, session: route_press(ctx, session, press.user, payload),
            payload.code,
            from_memory=True,
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
            return play.on_timer(ctx, session)

        return await self._decide(chat, decide, "timer", from_memory=True)

    async def _settings(self, chat: ChatRef, command: Command) -> list[Effect]:
        record = await self.store.load(chat)
        tr = translator(record.lang or command.user.lang)
        _ = tr._
        if not command.words:
            current = record.settings or ""
            lines = [line(_("Default rules of this chat: {words}").format(words=current or _("classic")))]
            lines.append(line(_("Language: {lang}").format(lang=record.lang or "en")))
            return [Reply(chat.chat_id, message(lines))]
        if not (command.is_admin or command.private):
            return [
                Reply(chat.chat_id, message([line(_("Only an admin of this chat can change its settings."))]))
            ]
        words = command.words.split()
        langs = [w.split("=", 1)[1].lower() for w in words if w.lower().startswith("lang=")]
        rule_words = " ".join(w for w in words if not w.lower().startswith("lang="))
        if any(lang not in LANGUAGES for lang in langs):
            return [
                Reply(
                    chat.chat_id, message([line(_("Languages: {langs}").format(langs=", ".join(LANGUAGES)))])
                )
            ]
        tr = translator(langs[-1]) if langs else tr  # "lang=ru" answers in Russian, refusals too
        try:
            settings = lobby_logic.merged_settings(record.settings, rule_words) if rule_words else None
        except SettingsError as error:
            return [Reply(chat.chat_id, message([line(settings_problem(error, tr))]))]
        await self.store.set_chat_settings(
            chat, words=settings.to_words() if settings else None, lang=langs[-1] if langs else None
        )
        return [Reply(chat.chat_id, message([line(tr._("Saved."))]))]

    def _route_command(self, ctx: Context, session: ChatSession | None, command: Command) -> Decision:
        name, user = command.name.lower(), command.user
        _ = ctx.tr(user.lang)._
        header = session.header if session is not None else None
        if name in ("newgame", "new"):
            return lobby_logic.open_lobby(
                ctx, session, user, command.words, command.chat_title, command.thread_id
            )
        if name == "rules":
            if session is not None and session.game is not None:
                settings = session.game.settings
            else:
                settings = Settings.from_words(
                    header.words if isinstance(header, Lobby | Finished) else ctx.record.settings or ""
                )
            return show(Reply(ctx.chat_id, render_rules(settings, ctx.tr(user.lang))))
        if name == "hint":
            return play.hint_for(ctx, session, user, command.private)
        if isinstance(header, Lobby):
            codes = {
                "join": payloads.JOIN,
                "leave": payloads.LEAVE,
                "start": payloads.START,
                "cancel": payloads.CANCEL,
            }
            if name in codes:
                return lobby_logic.lobby_action(ctx, header, user, codes[name], is_admin=command.is_admin)
        if isinstance(header, Playing) and session is not None:
            if name == "leave":
                return play.surrender(ctx, session, user)
            if name == "cancel":
                if user.id != header.creator and not command.is_admin:
                    return show(
                        Reply(ctx.chat_id, message([line(_("Only the creator or an admin can cancel."))]))
                    )
                return lobby_logic.closed(ctx, _("The game was cancelled."))
        if name in ("join", "leave", "start", "cancel"):
            return show(
                Reply(ctx.chat_id, message([line(_("There is no open lobby. Start one with /newgame."))]))
            )
        return show(Reply(ctx.chat_id, message([line(_("Unknown command. Try /help."))])))

    # ---- load, decide, save ------------------------------------------------------------------------

    async def _decide(
        self,
        chat: ChatRef,
        decide: Callable[[Context, ChatSession | None], Decision],
        action: str = "",
        *,
        from_memory: bool = False,
    ) -> list[Effect]:
        """Load, decide, save; on a conflict decide again on the record the save returned.

        ``from_memory`` (moves and deadlines): when this process saved the chat's running game last, decide on
        that record without loading it, one round trip instead of two. Only a save can confirm such a
        decision, so one that saves nothing (a refusal) is made again on the loaded record."""
        begin = time.perf_counter()
        record = self.recent.running_game(chat) if from_memory else None
        confirmed = record is None
        if record is None:
            record = await self.store.load(chat)
        for _attempt in range(MAX_ATTEMPTS):
            ctx = Context(chat, record, self.clock(), self.new_id, self.seed_source, self.config)
            session = self.recent.session(chat, record.state)
            decision = decide(ctx, session)
            if not decision.save:
                if not confirmed:
                    record, confirmed = await self.store.load(chat), True
                    continue
                return stamped(decision.effects, record.version)  # drawn from the stored record
            state = decision.session.encode() if decision.session is not None else None
            saved = await self.store.save_or_current(
                chat,
                record.version,
                state,
                ttl=decision.ttl,
                deadline=decision.deadline,
                outcome=decision.outcome,
                last_durak=decision.last_durak,
                clear_last_durak=decision.clear_last_durak,
                state_must_exist=not confirmed,
            )
            if isinstance(saved, int):
                self.recent.remember(chat, saved_record(record, saved, state, decision), decision.session)
                self._applied(chat, saved, action, decision, time.perf_counter() - begin)
                return stamped(decision.effects, saved)
            log.info("chat=%s version=%s conflict, deciding again", chat, record.version)
            record, confirmed = saved, True
        return [Alert("", translator(None)._("The table is busy, try again."))]

    @staticmethod
    def _applied(chat: ChatRef, version: int, action: str, decision: Decision, seconds: float) -> None:
        kind = "timer" if action == "timer" else "command" if action.startswith("/") else "press"
        metrics.METRICS.applied(chat.platform, kind, seconds)
        if actions_log.isEnabledFor(logging.INFO):
            header = decision.session.header if decision.session is not None else None
            game = getattr(header, "game_id", None) or getattr(header, "lobby_id", "")
            fields = {
                "platform": chat.platform, "chat": chat.chat_id, "game": game, "version": version,
                "action": action, "ms": round(seconds * 1000, 2),
            }  # fmt: skip
            actions_log.info("applied", extra={"fields": fields})


def saved_record(before: ChatRecord, version: int, state: str | None, decision: Decision) -> ChatRecord:
    """The chat's record as a successful save of ``decision`` left it (message ids and settings as loaded)."""
    last_durak = before.last_durak
    if decision.last_durak is not None:
        last_durak = decision.last_durak
    elif decision.clear_last_durak:
        last_durak = None
    return replace(before, version=version, state=state, last_durak=last_durak)


def stamped(effects: list[Effect], version: int) -> list[Effect]:
    """The effects with each table and hand marked with the chat version it shows, so an adapter can drop
    one that reaches it after a newer one (`ShownVersions`). In place: the decision is not used again."""
    for index, effect in enumerate(effects):
        if isinstance(effect, ShowTable | ShowHand):
            effects[index] = replace(effect, version=version)
    return effects


def route_press(ctx: Context, session: ChatSession | None, user: User, payload: payloads.Payload) -> Decision:
    _ = ctx.tr(user.lang)._
    header = session.header if session is not None else None
    if isinstance(header, Lobby) and payload.game_id == header.lobby_id:
        return lobby_logic.lobby_action(ctx, header, user, payload.code, seats_seen=payload.step)
    if isinstance(header, Playing) and session is not None:
        return play.on_game_press(ctx, session, user, payload)
    if (
        isinstance(header, Finished)
        and payload.code == payloads.REMATCH
        and payload.game_id == header.game_id
    ):
        return lobby_logic.rematch(ctx, header, user)
    return show(Alert(user.id, _("This button belongs to a game that is over."), show_alert=True))


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


def empty_record() -> ChatRecord:
    return ChatRecord()
