"""What the terminal shows: the group's table, your private hand with numbered moves, and short notes.

On a terminal the screen is redrawn in place (like the edited messages of a chat); when output goes to a file
or a pipe each change is printed once, in order, so a transcript reads like the chat's history.
"""

from __future__ import annotations

from typing import TextIO

from adapters.local import CHAT_ID
from adapters.local.reading import waiting_for_turn
from adapters.local.text import CLEAR_SCREEN, message_text, numbered_buttons, payload_buttons
from bot.adapter import (
    Alert,
    Button,
    Effect,
    Message,
    Notice,
    Reply,
    ShowHand,
    ShownVersions,
    ShowTable,
    Translator,
    buttons,
    payloads,
)

MAX_NOTES = 6


class Screen:
    def __init__(
        self, out: TextIO, me: str, tr: Translator, ansi: bool = False, redraw: bool = False
    ) -> None:
        self.out = out
        self.me = me
        self.tr = tr
        self.ansi = ansi
        self.redraw = redraw
        self.table: Message | None = None
        self.hand: Message | None = None
        self.result: Message | None = None  # the game-over notice, with its Rematch button
        self.game_id = ""
        self.closed = False  # the lobby or game was closed without a result (cancelled)
        self.notes: list[str] = []
        self.question: Button | None = None  # a reply's button (confirm a surrender): typing y presses it
        self.kept = ""  # the move typed before the player's turn, as shown ("A♥"), until it is played
        self.shown = ShownVersions()
        self._printed_table = ""
        self._printed_hand = ""
        self._printed_kept = ""

    # ---- taking effects --------------------------------------------------------------------------

    def take(self, effects: list[Effect]) -> None:
        """Your press and the AIs' moves (the timer loop) are handled at the same time, so their effects may
        come in the wrong order: a table or hand older than the one shown is left out.

        Notes answer the screen they were written under: when the player's turn comes, older ones go."""
        was_waiting, older_notes = self.waiting, len(self.notes)
        for effect in effects:
            if isinstance(effect, ShowTable | ShowHand) and not self.shown.fresh(effect):
                continue
            if isinstance(effect, ShowTable) and effect.chat == CHAT_ID:
                self.table = effect.message
                if effect.game_id:
                    self.game_id = effect.game_id
                else:
                    self.closed = True
                    self.hand = None
            elif isinstance(effect, ShowHand) and effect.user_id == self.me:
                self.hand = effect.message
            elif isinstance(effect, Notice):
                if any(pressed_by(b) == buttons.Rematch() for b in payload_buttons(effect.message)):
                    self.result = effect.message
                    self.hand = None
                self.notes.append(message_text(effect.message, self.ansi))
            elif isinstance(effect, Reply) and (not effect.user_id or effect.user_id == self.me):
                self.notes.append(message_text(effect.message, self.ansi))
                self.question = next(iter(payload_buttons(effect.message)), None)
                if self.question is not None:
                    answer = self.tr._("Type y to answer: {label}")
                    self.notes.append(answer.format(label=self.question.label))
            elif isinstance(effect, Alert) and effect.text and effect.user_id in (self.me, ""):
                self.notes.append(effect.text)
        if was_waiting and not self.waiting:
            del self.notes[:older_notes]

    def note(self, text: str) -> None:
        self.notes.append(text)

    @property
    def moves(self) -> list[Button]:
        """The hand message's buttons: the moves the player may type now."""
        return payload_buttons(self.hand)

    @property
    def waiting(self) -> bool:
        """The hand offers no move of a turn: others are moving (or the player is out)."""
        return waiting_for_turn(self.moves)

    # ---- drawing ------------------------------------------------------------------------------------

    def draw(self, prompt: bool = True) -> None:
        if self.redraw:
            self._draw_whole(prompt)
        else:
            self._draw_changes(prompt)
        self.out.flush()

    def _draw_whole(self, prompt: bool) -> None:
        parts = [CLEAR_SCREEN]
        if self.table is not None:
            parts.append(message_text(self.table, self.ansi) + "\n\n")
        if self.hand is not None:
            parts.append(message_text(self.hand, self.ansi) + "\n")
            moves = numbered_buttons(self.moves, self.ansi)
            if moves:
                parts.append(moves + "\n")
        self.notes = self.notes[-MAX_NOTES:]
        if self.notes:
            parts.append("\n" + "\n".join(self.notes) + "\n")
        if self.kept:
            parts.append("\n" + self.kept_line() + "\n")
        if prompt and self.moves:
            parts.append("> ")
        self.out.write("".join(parts))

    def _draw_changes(self, prompt: bool) -> None:
        table = message_text(self.table, self.ansi) if self.table is not None else ""
        if table and table != self._printed_table:
            self.out.write("\n" + table + "\n")
            self._printed_table = table
        hand = message_text(self.hand, self.ansi) if self.hand is not None else ""
        if hand and hand != self._printed_hand:
            self.out.write("\n" + hand + "\n")
            moves = numbered_buttons(self.moves, self.ansi)
            if moves:
                self.out.write(moves + "\n")
            self._printed_hand = hand
        for note in self.notes:
            self.out.write(("\n" if "\n" in note else "") + note + "\n")  # a message, not a one-liner
        self.notes = []
        if self.kept and self.kept != self._printed_kept:
            self.out.write(self.kept_line() + "\n")
        self._printed_kept = self.kept
        if prompt and self.moves:
            self.out.write(self.prompt_line() + "\n")

    def prompt_line(self) -> str:
        return self.tr._("Your move (1-{n}, a card like 9h, t take, p pass, ? help, q quit):").format(
            n=len(self.moves)
        )

    def kept_line(self) -> str:
        return self.tr._(
            "Your next move, kept for your turn: {move} (type another move to change it)."
        ).format(move=self.kept)

    def say(self, text: str) -> None:
        """A line of the adapter's own (questions, help), outside the redrawn screen."""
        self.out.write(text + "\n")
        self.out.flush()


def pressed_by(button: Button) -> buttons.Button | None:
    """What pressing ``button`` presses (None for a button that is not one of the service's)."""
    payload = payloads.parse(button.payload)
    return payload.button if payload is not None else None


def find_button(message: Message | None, pressed: buttons.Button) -> Button | None:
    """The button of a lobby or result message that presses ``pressed`` (Add AI, Start, Rematch)."""
    return next((b for b in payload_buttons(message) if pressed_by(b) == pressed), None)
