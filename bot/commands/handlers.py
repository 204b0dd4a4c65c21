"""What each command does: one async handler per command, registered under the table's name in `HANDLERS`.

A handler gets a `CommandDesk` (the part of the service a command needs: deciding on the chat's record, the
store calls of `ChatBook`, the /hint limiter and the AI pool) and the `Command`, and returns the effects.
Most decide on the chat's stored record through `CommandDesk.decide_command` (load, pure decision,
compare-and-set save); the few that need no game state (`/stats`, `/me`, `/settings`, `/help`) read or
write the store directly and skip that path. `tests/bot/test_command_table.py` checks that the table's
names and `HANDLERS` are the same set.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from bot import buttons
from bot.commands.table import COMMANDS, command_named, spelled
from bot.context import Context
from bot.decision import Decision, show
from bot.effects import Alert, Effect, Reply
from bot.game import lobby as lobby_logic
from bot.game import surrender
from bot.game.hint import hint_for
from bot.i18n import LANGUAGES, translator
from bot.inputs import Command
from bot.render.personal import render_me
from bot.render.rules import render_rules, settings_problem
from bot.render.summary import render_help, render_stats
from bot.render.text import line, message
from bot.runtime import unusable
from bot.runtime.metrics import Metrics
from bot.runtime.ratelimit import PressLimiter
from bot.session import ChatSession, Finished, Lobby, Playing
from core import Settings, SettingsError
from core.settings import accepted_words
from storage import ChatRef
from storage.models import ChatRecord, PersonalRecord, PlayerStats

if TYPE_CHECKING:  # a type only: the pool's module starts worker processes
    from bot.runtime.ai_pool import AiPool, Prepare

Decide = Callable[[Context, ChatSession | None, Command], Decision]


class ChatBook(Protocol):
    """The store calls a command makes: a chat's record and default settings, its standings and seasons."""

    async def load(self, chat: ChatRef) -> ChatRecord: ...

    async def replace_chat_words(self, chat: ChatRef, read: str, words: str) -> bool: ...

    async def set_chat_settings(
        self, chat: ChatRef, words: str | None = None, lang: str | None = None
    ) -> None: ...

    async def stats(self, chat: ChatRef, limit: int = 20, season: int = 1) -> list[PlayerStats]: ...

    async def most_often_durak(self, chat: ChatRef, limit: int = 3, season: int = 1) -> list[PlayerStats]: ...

    async def personal(self, chat: ChatRef, user_id: str, season: int = 1) -> PersonalRecord: ...

    async def new_season(self, chat: ChatRef) -> int: ...


class CommandDesk(Protocol):
    """What a command handler is given of the service (`bot.service.GameService` is one)."""

    @property
    def store(self) -> ChatBook: ...

    @property
    def hint_limiter(self) -> PressLimiter | None: ...

    @property
    def ai(self) -> AiPool | None: ...

    @property
    def metrics(self) -> Metrics: ...

    async def decide_command(
        self, command: Command, decide: Decide, prepare: Prepare | None = None
    ) -> list[Effect]: ...


Handler = Callable[[CommandDesk, Command], Awaitable[list[Effect]]]


SEASON_WORD = "season"  # a chat setting (/settings season=new) and a /stats word, never a rule of the game


def decided(decide: Decide) -> Handler:
    """A handler that decides on the chat's stored record: the usual path of a command."""

    async def handler(service: CommandDesk, command: Command) -> list[Effect]:
        return await service.decide_command(command, decide)

    return handler


# ---- answered without the game ---------------------------------------------------------------------


async def stats(service: CommandDesk, command: Command) -> list[Effect]:
    """The current season's standings, or an earlier season's with ``season=1``."""
    chat = ChatRef(command.platform, command.chat_id)
    record = await service.store.load(chat)
    tr = translator(record.lang or command.user.lang)
    season = asked_season(command.words, record.season)
    if season is None:
        example = season_stats(command.platform, 1)
        text = tr._("Seasons of this chat: 1 to {n}, e.g. {command}").format(n=record.season, command=example)
        return [Reply(chat.chat_id, message([line(text)]))]
    rows = await service.store.stats(chat, season=season)
    most_often_durak = await service.store.most_often_durak(chat, season=season)
    return [Reply(chat.chat_id, render_stats(rows, tr, most_often_durak, season))]


def season_stats(platform: str, season: int) -> str:
    """``/stats season=N`` as ``platform`` offers it (`bot.commands.table.spelled`)."""
    return spelled("stats", platform, SEASON_WORD, str(season))


def asked_season(words: str, current: int) -> int | None:
    """The season ``/stats`` words ask for: the current one without words, None for words that name none of
    the chat's seasons."""
    if not words.strip():
        return current
    name, _, number = words.strip().lower().partition("=")
    if name != SEASON_WORD or not number.isdigit() or not 1 <= int(number) <= current:
        return None
    return int(number)


async def me(service: CommandDesk, command: Command) -> list[Effect]:
    """The asker's own record in this chat, for their eyes only: in their private chat on Telegram,
    ephemeral on Discord."""
    chat = ChatRef(command.platform, command.chat_id)
    record = await service.store.load(chat)
    mine = await service.store.personal(chat, command.user.id, record.season)
    tr = translator(command.user.lang or record.lang)
    text = render_me(mine, command.chat_title, record.season, tr)
    return [Reply(chat.chat_id, text, private=True, user_id=command.user.id, asked_for=True)]


async def help_(service: CommandDesk, command: Command) -> list[Effect]:
    chat = ChatRef(command.platform, command.chat_id)
    record = await service.store.load(chat)
    tr = translator(record.lang or command.user.lang)
    return [Reply(chat.chat_id, render_help(COMMANDS, accepted_words(), tr))]


async def settings(service: CommandDesk, command: Command) -> list[Effect]:
    notes: list[Effect] = []  # defaults dropped because they no longer parse (`bot.runtime.unusable`)
    answer = await _settings(service, command, notes)
    return notes + answer


async def _settings(service: CommandDesk, command: Command, notes: list[Effect]) -> list[Effect]:
    chat = ChatRef(command.platform, command.chat_id)
    record = await unusable.loaded(service.store, chat, notes)
    tr = translator(record.lang or command.user.lang)
    _ = tr._
    if not command.words:
        current = record.settings or ""
        lines = [line(_("Default rules of this chat: {words}").format(words=current or _("classic")))]
        lines.append(line(_("Language: {lang}").format(lang=record.lang or "en")))
        lines.append(line(_("Season: {n}").format(n=record.season)))
        return [Reply(chat.chat_id, message(lines))]
    if not (command.is_admin or command.private):
        return [
            Reply(chat.chat_id, message([line(_("Only an admin of this chat can change its settings."))]))
        ]
    words = command.words.split()
    langs = [w.split("=", 1)[1].lower() for w in words if w.lower().startswith("lang=")]
    seasons = [w.split("=", 1)[1].lower() for w in words if w.lower().startswith(f"{SEASON_WORD}=")]
    rule_words = " ".join(w for w in words if not w.lower().startswith(("lang=", f"{SEASON_WORD}=")))
    if any(lang not in LANGUAGES for lang in langs):
        return [
            Reply(chat.chat_id, message([line(_("Languages: {langs}").format(langs=", ".join(LANGUAGES)))]))
        ]
    if any(season != "new" for season in seasons):
        return [Reply(chat.chat_id, message([line(_("A new season starts with season=new."))]))]
    tr = translator(langs[-1]) if langs else tr  # "lang=ru" answers in Russian, refusals too
    try:
        chosen = lobby_logic.merged_settings(record.settings, rule_words) if rule_words else None
    except SettingsError as error:
        return [Reply(chat.chat_id, message([line(settings_problem(error, tr))]))]
    await service.store.set_chat_settings(
        chat, words=chosen.to_words() if chosen else None, lang=langs[-1] if langs else None
    )
    lines = [line(tr._("Saved."))]
    if seasons:
        season = await service.store.new_season(chat)
        started = tr._("Season {n} has begun: ratings and standings start again. Earlier seasons: {command}")
        lines.append(line(started.format(n=season, command=season_stats(command.platform, season - 1))))
    return [Reply(chat.chat_id, message(lines))]


async def start(service: CommandDesk, command: Command) -> list[Effect]:
    """Telegram sends /start when someone opens the bot's private chat: there it is help; in a group, or
    with words (a deep link the adapter did not take), it starts the lobby's game."""
    if command.private and not command.words:
        return await help_(service, command)
    return await service.decide_command(command, _pressed(buttons.Start()))


async def hint(service: CommandDesk, command: Command) -> list[Effect]:
    user = command.user
    if service.hint_limiter is not None and not service.hint_limiter.allow(command.platform, user.id):
        service.metrics.refused(command.platform, "hint_limited")
        text = translator(user.lang)._("One hint at a time: ask again in a few seconds.")
        return [Alert(user.id, text)]  # only the asker sees it, like the command limit's refusal
    prepare = None
    if service.ai is not None and command.private:  # a group gets "practice games only", no work
        prepare = service.ai.for_hint(user.id)

    def decide(ctx: Context, session: ChatSession | None, command: Command) -> Decision:
        return hint_for(ctx, session, command.user, command.private)

    return await service.decide_command(command, decide, prepare=prepare)


# ---- decided on the chat's record --------------------------------------------------------------------


def open_lobby(ctx: Context, session: ChatSession | None, command: Command) -> Decision:
    return lobby_logic.open_lobby(
        ctx, session, command.user, command.words, command.chat_title, command.thread_id, command.private
    )


def rules(ctx: Context, session: ChatSession | None, command: Command) -> Decision:
    header = session.header if session is not None else None
    if session is not None and session.game is not None:
        in_force = session.game.settings
    else:
        in_force = Settings.from_words(
            header.words if isinstance(header, Lobby | Finished) else ctx.record.settings or ""
        )
    return show(Reply(ctx.chat_id, render_rules(in_force, ctx.tr(command.user.lang))))


def _lobby_step(
    ctx: Context, session: ChatSession | None, command: Command, button: buttons.LobbyButton
) -> Decision:
    """/join, /leave, /start, /cancel: the lobby's buttons typed; during a game /leave surrenders and
    /cancel (its creator or an admin) stops it, or surrenders it when the canceller plays a rated game
    (`surrender.cancel`)."""
    user = command.user
    _ = ctx.tr(user.lang)._
    header = session.header if session is not None else None
    if isinstance(header, Lobby):
        return lobby_logic.lobby_action(ctx, header, user, button, is_admin=command.is_admin)
    if isinstance(header, Playing) and session is not None:
        if isinstance(button, buttons.Leave):
            return surrender.ask(ctx, session, user)
        if isinstance(button, buttons.Cancel):
            if user.id != header.creator and not command.is_admin:
                return show(
                    Reply(ctx.chat_id, message([line(_("Only the creator or an admin can cancel."))]))
                )
            return surrender.cancel(ctx, session, user)
    text = _("There is no open lobby. Start one with {command}.").format(command=ctx.spelled("newgame"))
    return show(Reply(ctx.chat_id, message([line(text)])))


def _pressed(button: buttons.LobbyButton) -> Decide:
    def decide(ctx: Context, session: ChatSession | None, command: Command) -> Decision:
        return _lobby_step(ctx, session, command, button)

    return decide


def lobby_button(button: buttons.LobbyButton) -> Handler:
    """The handler of a command that presses the lobby's ``button`` (Join, Leave, Cancel)."""
    return decided(_pressed(button))


def _unknown(ctx: Context, session: ChatSession | None, command: Command) -> Decision:
    _ = ctx.tr(command.user.lang)._
    text = _("Unknown command. Try {command}.").format(command=ctx.spelled("help"))
    return show(Reply(ctx.chat_id, message([line(text)])))


unknown = decided(_unknown)


HANDLERS: dict[str, Handler] = {  # each command of `bot.commands.table`, by its name
    "newgame": decided(open_lobby),
    "join": lobby_button(buttons.Join()),
    "leave": lobby_button(buttons.Leave()),
    "start": start,
    "cancel": lobby_button(buttons.Cancel()),
    "rules": decided(rules),
    "settings": settings,
    "stats": stats,
    "me": me,
    "hint": hint,
    "help": help_,
}


def handler_for(name: str) -> Handler:
    """The handler of the command typed as ``name`` (any case, an alias too); `unknown` for none."""
    spec = command_named(name)
    return HANDLERS[spec.name] if spec is not None else unknown
