"""What a typed line means: a button of the hand message, a slash command, help, or quit.

Only translation: a number is the n-th button, ``9h`` the button whose action uses that card, ``t``/``p`` the
Take/Pass buttons. Whether a move is legal is for the service to say; here we only map text to buttons.
A card, ``t`` or ``p`` typed before the player's turn is kept and read again when the turn comes (`Later`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.adapter import Button, Move, Translator, payloads
from core import Action, Card, Kind
from core.numbers import whole_number


@dataclass(frozen=True)
class Pick:
    """Press this button."""

    payload: str


@dataclass(frozen=True)
class Problem:
    """One line telling the player why nothing happened."""

    text: str


@dataclass(frozen=True)
class Unplayable(Problem):
    """A card no offered move plays; the terminal asks the stored game why (`GameQueries.card_refusal`)."""

    card: Card


@dataclass(frozen=True)
class Later:
    """A card, take or pass typed while others move: kept, and read again when the player's turn comes."""

    text: str
    label: str  # how the screen names the kept move: "A♥", "Take"


@dataclass(frozen=True)
class SlashCommand:
    name: str
    words: str = ""


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class Quit:
    pass


Meaning = Pick | Problem | Later | SlashCommand | Help | Quit

MOVE_DIGITS = 4  # a hand never has 10,000 buttons; longer numbers are not read at all
KIND_WORDS = {"t": Kind.TAKE, "take": Kind.TAKE, "p": Kind.PASS, "pass": Kind.PASS}


def button_action(button: Button) -> Action | None:
    """The game action a hand button stands for (None for buttons that are not moves)."""
    payload = payloads.parse(button.payload)
    if payload is None:
        return None
    return payload.button.action if isinstance(payload.button, Move) else None


def waiting_for_turn(buttons: list[Button]) -> bool:
    """No move of a turn is offered (at most the trump exchange, which is not bound to a turn)."""
    return not any(
        (action := button_action(b)) is not None and action.kind is not Kind.EXCHANGE for b in buttons
    )


def usage(count: int, tr: Translator) -> str:
    if not count:
        return tr._("Not your turn yet: a card (like 9h), t or p typed now is played when it comes; q quits.")
    return tr._(
        "Type a move's number (1-{n}), a card like 9h, t to take, p to pass; ? for help, q to quit."
    ).format(n=count)


def interpret(text: str, buttons: list[Button], tr: Translator) -> Meaning:
    _ = tr._
    typed = text.strip()
    word = typed.lower()
    if not typed:
        return Problem(usage(len(buttons), tr))
    if word in ("q", "quit", "exit"):
        return Quit()
    if word in ("?", "h", "help"):
        return Help()
    if typed.startswith("/"):
        name, _sep, words = typed[1:].partition(" ")
        return SlashCommand(name.lower(), words.strip()) if name else Problem(usage(len(buttons), tr))
    number = whole_number(word, MOVE_DIGITS)
    if number is not None:
        if not buttons:
            return Problem(usage(0, tr))
        if not 1 <= number <= len(buttons):
            return Problem(
                _("There is no move {number}: choose 1 to {n}.").format(number=number, n=len(buttons))
            )
        return Pick(buttons[number - 1].payload)
    if word in KIND_WORDS:
        kind = KIND_WORDS[word]
        if waiting_for_turn(buttons):
            return Later(typed, _("Take") if kind is Kind.TAKE else _("Pass"))
        for button in buttons:
            action = button_action(button)
            if action is not None and action.kind is kind:
                return Pick(button.payload)
        return Problem(_("You cannot take now.") if kind is Kind.TAKE else _("You cannot pass now."))
    try:
        card = Card.parse(typed)
    except ValueError:
        return Problem(usage(len(buttons), tr))
    if waiting_for_turn(buttons):
        return Later(typed, card.symbol)
    return pick_card(card, buttons, tr)


def pick_card(card: Card, buttons: list[Button], tr: Translator) -> Meaning:
    """The one button that plays ``card``; when several do (cover targets, transfer), ask which."""
    _ = tr._
    matches = [
        (number, button)
        for number, button in enumerate(buttons, start=1)
        if (action := button_action(button)) is not None and action.card == card
    ]
    if not matches:
        if not buttons:
            return Problem(usage(0, tr))
        return Unplayable(
            _("{card} is not one of your moves now: you do not hold it, or it cannot be played.").format(
                card=card.symbol
            ),
            card,
        )
    if len(matches) == 1:
        return Pick(matches[0][1].payload)
    choices = "   ".join(f"{number}) {button.label}" for number, button in matches)
    return Problem(
        _("{card} fits several moves: {choices}; type the number.").format(card=card.symbol, choices=choices)
    )
