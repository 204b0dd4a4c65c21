"""`durak-bot play`: you against AI players in the terminal, through the same service as the chat platforms.

Typed lines become the presses and commands a chat user would send; the service's effects are drawn by
`Screen`; the AIs move through the ordinary turn-timer loop at the configured pace (`AI_DELAY`).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from adapters.local import CHAT_ID, PLATFORM
from adapters.local.lines import LineReader, Lines
from adapters.local.reading import Help, Later, Pick, Problem, Quit, SlashCommand, Unplayable, interpret
from adapters.local.screen import Screen, find_button
from adapters.local.snapshot import running_game_screen
from bot.adapter import (
    Alert,
    ChatRef,
    Command,
    Effect,
    GameService,
    Place,
    Press,
    ShowTable,
    TimerDue,
    Translator,
    User,
    buttons,
    offered_in,
    run_own_timers,
)

LOCAL_CHAT = ChatRef(PLATFORM, CHAT_ID)
# "yes" typed to a question, in each language we speak (bot.i18n.LANGUAGES); never a letter that is also a
# move ("t" takes, so Polish answers "tak" in full)
YES_WORDS = (
    *("y", "yes"), *("д", "да"), *("s", "si", "sì", "sí"), *("т", "так"), *("j", "ja"), "tak", "ano",
)  # fmt: skip
NO_WORDS = ("n", "no", "н", "нет")


@dataclass(frozen=True)
class PlayOptions:
    words: str = ""
    players: int = 2
    ai: str = "normal"
    lang: str = "en"


class TerminalGame:
    """One person at the terminal; the store keeps the game, so quitting and coming back continues it."""

    def __init__(self, service: GameService, screen: Screen, reader: Lines, user: User) -> None:
        self.service = service
        self.screen = screen
        self.reader = reader
        self.user = user
        self.tr: Translator = screen.tr
        self.changed = asyncio.Event()
        self.typed_ahead = ""  # a card, t or p typed while others moved: played when the turn comes

    # ---- talking to the service ------------------------------------------------------------------

    async def command(self, name: str, words: str = "") -> list[Effect]:
        """A slash command typed in the terminal: a private chat with the bot, where you are the admin."""
        return await self.service.handle(
            Command(
                PLATFORM, CHAT_ID, self.user, name, words, chat_title="terminal", is_admin=True, private=True
            )
        )

    async def press(self, payload: str) -> list[Effect]:
        return await self.service.handle(Press(PLATFORM, self.user, payload))

    def show(self, effects: list[Effect]) -> None:
        self.screen.take(effects)
        self.screen.draw()
        self.changed.set()

    async def deliver(self, due: TimerDue, effects: list[Effect]) -> None:
        """The timer loop's effects (AI moves, reminders, timeouts) for this terminal."""
        if due.platform == PLATFORM and due.chat_id == CHAT_ID:
            self.show(effects)
            await self.play_typed_ahead()

    async def play_typed_ahead(self) -> None:
        """The player's turn has come and a move was typed for it: play it if it is legal now, else say why
        (the reason `interpret` gives a line typed now)."""
        if not self.typed_ahead or self.screen.waiting:
            return
        text, shown = self.typed_ahead, self.screen.kept
        self.typed_ahead = self.screen.kept = ""
        meaning = interpret(text, self.screen.moves, self.tr)
        if isinstance(meaning, Pick):
            self.show(await self.press(meaning.payload))
        elif isinstance(meaning, Problem):
            self.screen.note(
                self.tr._("Your move typed ahead ({move}) was not made: {reason}").format(
                    move=shown, reason=await self.reason(meaning)
                )
            )
            self.screen.draw()

    # ---- the session -------------------------------------------------------------------------------

    async def run(self, options: PlayOptions) -> int:
        _ = self.tr._
        # The terminal chat's defaults: its language, and no turn timer unless the words ask for one.
        await self.command("settings", f"timer=0 lang={options.lang}")
        if not await self.resume_or_clear():
            started = await self.new_game(options)
            if started != 0:
                return started
        while True:
            outcome = await self.play_until_over()
            if outcome is not None:
                return outcome
            if self.screen.closed or self.screen.result is None:
                return 0
            await self.after_game()
            answer = await self.ask(_("Play again? [y/N]"))
            if (answer or "").strip().lower() not in YES_WORDS:
                return 0
            if not await self.rematch():
                return 1

    async def resume_or_clear(self) -> bool:
        """A game left running here is offered again; an abandoned lobby is closed."""
        _ = self.tr._
        seen = await self.service.queries.seen(LOCAL_CHAT, self.user.id, lang=self.user.lang)
        table, hand, kind = running_game_screen(seen, self.service.clock())
        if kind in ("lobby", "unreadable"):  # the service closes a lobby, and sets an unreadable record aside
            await self.command("cancel")
            return False
        if kind != "game":
            return False
        self.screen.table, self.screen.hand = table, hand
        self.screen.draw(prompt=False)
        answer = await self.ask(_("A game is in progress here. Continue it? [Y/n]"))
        if answer is None:
            return True  # no input at all: the game stays as it is, and the loop below will leave
        if answer.strip().lower() not in NO_WORDS:  # only a clear "no" throws a game away
            self.screen.draw()
            return True
        effects = await self.command("cancel")
        self.screen.take(effects)
        self.screen.table = self.screen.hand = None
        self.screen.closed = False
        return False

    async def new_game(self, options: PlayOptions) -> int:
        """Open a lobby with the words, add the AI seats, start: the buttons a chat user would press."""
        _ = self.tr._
        effects = await self.command("newgame", options.words)
        if not any(isinstance(e, ShowTable) and e.new_message for e in effects):
            self.screen.take(effects)
            self.screen.draw(prompt=False)
            return 2
        self.screen.take(effects)
        for _seat in range(options.players - 1):
            add = find_button(self.screen.table, buttons.AddAi(options.ai))
            if add is None:
                self.screen.say(_("This lobby has no Add AI button."))
                return 1
            if failed := await self.press_and_check(add.payload):
                return failed
        start = find_button(self.screen.table, buttons.Start())
        if start is None:
            self.screen.say(_("This lobby has no Start button."))
            return 1
        self.screen.result = None
        self.screen.closed = False
        return await self.press_and_check(start.payload)

    async def press_and_check(self, payload: str) -> int:
        """Press a lobby button; an alert with text means it was refused (e.g. the table is full)."""
        effects = await self.press(payload)
        refusals = [e for e in effects if isinstance(e, Alert) and e.text and e.show_alert]
        self.show(effects)
        return 2 if refusals else 0

    async def rematch(self) -> bool:
        button = find_button(self.screen.result, buttons.Rematch())
        if button is None:
            return False
        self.screen.result = None
        self.screen.closed = False
        self.screen.take(await self.press(button.payload))
        start = find_button(self.screen.table, buttons.Start())
        if start is None:
            self.screen.draw()
            return False
        return await self.press_and_check(start.payload) == 0

    async def after_game(self) -> None:
        """The standings, then how to see the game again: the last lines on screen when the prompt comes (the
        result above says how to check the deal)."""
        _ = self.tr._
        self.show(await self.command("stats"))
        if self.screen.game_id:
            self.screen.say(_("Replay this game with: durak-bot replay {id}").format(id=self.screen.game_id))

    async def play_until_over(self) -> int | None:
        """Read moves until the game ends (None) or the player leaves (an exit status)."""
        _ = self.tr._
        pending: asyncio.Task[str | None] | None = None
        try:
            while self.screen.result is None and not self.screen.closed:
                if pending is None:
                    pending = asyncio.create_task(self.reader.next())
                self.changed.clear()
                waiter = asyncio.create_task(self.changed.wait())
                done, _rest = await asyncio.wait({pending, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if pending not in done:
                    continue  # the screen changed (an AI moved); check whether the game is over
                text, pending = pending.result(), None
                if text is None:
                    self.screen.say(_("Input ended. The game is saved: run the same command to continue."))
                    return 0
                if await self.on_line(text):
                    self.screen.say(_("The game is saved: run the same command to continue."))
                    return 0
            return None
        finally:
            self.typed_ahead = self.screen.kept = ""  # a move typed for this game is not kept for the next
            if pending is not None:
                pending.cancel()

    async def on_line(self, text: str) -> bool:
        """Act on one typed line; True when the player wants to leave."""
        self.screen.notes.clear()  # the last answer's notes have been read
        question, self.screen.question = self.screen.question, None  # it answers the very next line only
        if question is not None and text.strip().lower() in YES_WORDS:
            self.show(await self.press(question.payload))
            return False
        meaning = interpret(text, self.screen.moves, self.tr)
        if isinstance(meaning, Quit):
            return True
        if isinstance(meaning, Pick):
            self.show(await self.press(meaning.payload))
        elif isinstance(meaning, Later):
            self.typed_ahead, self.screen.kept = meaning.text, meaning.label
            self.screen.draw()
        elif isinstance(meaning, SlashCommand):
            self.show(await self.command(meaning.name, meaning.words))
        elif isinstance(meaning, Help):
            self.screen.note(help_text(self.tr))
            self.screen.draw()
        elif isinstance(meaning, Problem):
            self.screen.note(await self.reason(meaning))
            self.screen.draw()
        return False

    async def reason(self, problem: Problem) -> str:
        """What to say about a line that made no move; for a card no move plays, the engine's reason."""
        if isinstance(problem, Unplayable):
            refusal = await self.service.queries.card_refusal(LOCAL_CHAT, self.user.id, problem.card)
            return refusal or problem.text
        return problem.text

    async def ask(self, question: str) -> str | None:
        self.screen.say(question)
        return await self.reader.next()


def help_text(tr: Translator) -> str:
    """How to move, then the terminal's commands from the table (`bot.commands.table`), then how to quit."""
    _ = tr._
    return "\n".join(
        [
            _("Type the number of a move, or a card (9h, 10s, qd, as), t to take, p to pass."),
            *(f"{spec.usage} — {tr.declared(spec.help)}" for spec in offered_in(Place.TERMINAL)),
            "q — " + _("quit, keep the game"),
        ]
    )


async def play_in_terminal(
    service: GameService, screen: Screen, user: User, options: PlayOptions, poll: float
) -> int:
    """Run the timer loop beside the terminal session; stop it when the session ends."""
    reader = LineReader(0)
    game = TerminalGame(service, screen, reader, user)
    stop = asyncio.Event()
    timers = asyncio.create_task(run_own_timers(service, stop, game.deliver, poll=poll))
    try:
        return await game.run(options)
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(timers, timeout=5)
