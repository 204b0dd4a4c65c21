"""Surrender (rules.md §7.7): `/leave` during a game asks first, and only the leaver's own press of the
answer's button, within `CONFIRM_SECONDS`, ends the game. Pure: see `Decision`.

Nothing is stored while the question is open: its button says whose seat it is for and when it was asked
(``Y<seat>:<seconds since the game started, base 36>``), under the game's id and the step it was asked at.
A press is refused, with the reason, when it comes from anyone else, after the time, or from another game.

`/cancel` of a rated game by one of its players asks the same question (docs/reliability.md §12): a game
that compares people cannot be dodged by cancelling it while losing; an admin who is not playing stops it.
"""

from __future__ import annotations

from bot import ratings
from bot.buttons import ConfirmSurrender
from bot.context import Context
from bot.decision import Decision, show
from bot.effects import Alert, Button, Reply
from bot.game.lobby import game_cancelled
from bot.game.moves import apply_and_settle
from bot.game.seats import seat_of, with_seat
from bot.inputs import User
from bot.payloads import Payload
from bot.render.text import bold, line, message
from bot.session import ChatSession, Playing
from core import Action

CONFIRM_SECONDS = 30


def cancel(ctx: Context, session: ChatSession, user: User) -> Decision:
    """`/cancel` of a running game by its creator or an admin. A game that rates people
    (`ratings.compares_people`) is the surrender question for a canceller still holding cards, and cannot be
    cancelled by one who is out (the others' places still count); anyone else (an admin not playing, a game of
    one person with AI seats) stops it and nothing is recorded."""
    header, game = session.header, session.game
    assert isinstance(header, Playing) and game is not None
    seat_no = seat_of(header, user.id)
    if seat_no is None or not ratings.compares_people(header.seats, game.settings.teams):
        return game_cancelled(ctx, header, user, game)
    if game.is_out(seat_no):
        text = ctx.tr(user.lang)._(
            "The others are still playing and the game counts: only an admin who is not playing can stop it."
        )
        return show(Reply(ctx.chat_id, message([line(text)])))
    return ask(ctx, session, user, cancelling=True)


def ask(ctx: Context, session: ChatSession, user: User, cancelling: bool = False) -> Decision:
    """`/leave` during a game (or ``cancelling``: `/cancel` of a rated game, see `cancel`): the question with
    its button, to the leaver alone where the platform can reach them privately, else in the chat (the
    button still works for the leaver only)."""
    header, game = session.header, session.game
    assert isinstance(header, Playing) and game is not None
    tr = ctx.tr(user.lang)
    _ = tr._
    seat_no = seat_of(header, user.id)
    if seat_no is None:
        return show(Reply(ctx.chat_id, message([line(_("You are not playing in this game."))])))
    if game.is_out(seat_no):
        return show(Reply(ctx.chat_id, message([line(_("You are already out of the game."))])))
    question = ConfirmSurrender(seat_no, max(0, int(ctx.now - header.started_at)))
    payload = Payload(ctx.chat_id, header.game_id, game.step, question)
    if cancelling and game.settings.teams:
        text = _(
            "Other people are playing: cancelling counts as your surrender. "
            "Your team will lose and the game ends for everyone."
        )
    elif cancelling:
        text = _(
            "Other people are playing: cancelling counts as your surrender. "
            "You will be the durak and the game ends for everyone."
        )
    elif game.settings.teams:
        text = _("Surrender? Your team will lose and the game ends for everyone.")
    else:
        text = _("Surrender? You will be the durak and the game ends for everyone.")
    within = tr.n_(
        "Press the button within {n} second to confirm.",
        "Press the button within {n} seconds to confirm.",
        CONFIRM_SECONDS,
    ).format(n=CONFIRM_SECONDS)
    private = header.seats[seat_no].private_closed_at is None
    lines = [line(text), line(within)]
    if not private:
        lines.insert(0, line(bold(header.seats[seat_no].name)))
    button = Button(_("Yes, surrender"), payload.encode())
    return show(Reply(ctx.chat_id, message(lines, [[button]]), private=private, user_id=user.id))


def confirmed(
    ctx: Context, session: ChatSession, user: User, payload: Payload, question: ConfirmSurrender
) -> Decision:
    """The press of a question's button (``question``, of ``payload``): the surrender, or the reason it no
    longer holds."""
    header, game = session.header, session.game
    assert isinstance(header, Playing) and game is not None
    _ = ctx.tr(user.lang)._
    asked_at = header.started_at + question.asked
    if payload.game_id == header.game_id and (
        payload.step > game.step or asked_at > ctx.now + 1 or question.seat >= len(header.seats)
    ):  # never drawn by us: forged
        return show(Alert(user.id, _("That button is not valid."), show_alert=True))
    if payload.game_id != header.game_id:
        return show(Alert(user.id, _("That game is over: there is nothing to surrender."), show_alert=True))
    seat_no = seat_of(header, user.id)
    if seat_no != question.seat:
        text = _("Only {name} can confirm this surrender.").format(name=header.seats[question.seat].name)
        return show(Alert(user.id, text, show_alert=True))
    if ctx.now - asked_at > CONFIRM_SECONDS:
        text = _(
            "This confirmation has expired: send {command} again if you still want to surrender."
        ).format(command=ctx.spelled("leave"))
        return show(Alert(user.id, text, show_alert=True))
    if game.is_out(seat_no):
        return show(Alert(user.id, _("You are already out of the game."), show_alert=True))
    header = with_seat(header, seat_no, autopilot=False, timeouts=0)  # their own act: not the AI's result
    return apply_and_settle(ctx, session, header, game, seat_no, Action.parse("s"))
