"""The turn clock: each new step's deadline, the marks of a person's turn (the hand drawn again with the
time left, the reminder, retracted once that turn has passed) and the pause for a hand that cannot be
delivered. Kept apart from the moves so the service's other inputs that move a deadline (a private chat
opened or closed, a recovery) need not import them."""

from __future__ import annotations

from bot.context import Context
from bot.decision import GAME_TTL, Decision
from bot.effects import TURN_REMINDER, Effect, Reply, Retract
from bot.game.screens import current_hand
from bot.render.text import line, message
from bot.session import ChatSession, Playing, Seat
from core import Game

CLOSED_PAUSE = 120.0  # seconds a turn waits at most for a hand that cannot be delivered


def next_deadline(ctx: Context, header: Playing, game: Game) -> tuple[Playing, float | None]:
    """Each new step gives the seat to act a fresh turn; AI seats move after a short pause."""
    seat_no = game.to_act
    if seat_no is None:
        return header, None
    if header.seats[seat_no].played_by_ai:
        return header.model_copy(
            update={"turn_deadline": None, "turn_step": game.step}
        ), ctx.now + ctx.config.ai_delay
    timer = game.settings.timer
    if not timer:
        return header.model_copy(update={"turn_deadline": None, "turn_step": game.step}), None
    if header.turn_step != game.step or header.turn_deadline is None:
        header = header.model_copy(
            update={
                "turn_deadline": ctx.now + timer + closed_pause(ctx, header.seats[seat_no]),
                "turn_step": game.step,
                "reminded": False,
                "clock_mark": None,
                "clock_left": None,
            }
        )
    assert header.turn_deadline is not None
    pending = pending_marks(ctx, header, timer)
    return header, header.turn_deadline - (pending[0] if pending else 0.0)


def clock_marks(ctx: Context, timer: int) -> list[float]:
    """The seconds left at which a person's turn gets something, largest first: the hand drawn again
    (`ServiceConfig.clock_refresh`) and the reminder; only marks below the turn's length."""
    marks = {mark for mark in ctx.config.clock_refresh if mark < timer}
    if timer > ctx.config.reminder_before:
        marks.add(ctx.config.reminder_before)
    return sorted(marks, reverse=True)


def pending_marks(ctx: Context, header: Playing, timer: int) -> list[float]:
    """This turn's marks not handled yet, largest first."""
    last = header.clock_mark
    return [
        mark
        for mark in clock_marks(ctx, timer)
        if (last is None or mark < last) and not (header.reminded and mark == ctx.config.reminder_before)
    ]


def clock_mark(ctx: Context, header: Playing, game: Game, seat_no: int, deadline: float) -> Decision:
    """A mark of the acting person's clock is due (`clock_marks`): at the reminder's a private reminder, at a
    refresh's their hand drawn with the time left. A timer that fires late (the bot was busy or down) handles
    every mark passed at once; one that fires early only sets the deadline again."""
    seat = header.seats[seat_no]
    due = [mark for mark in pending_marks(ctx, header, game.settings.timer) if ctx.now >= deadline - mark]
    effects: list[Effect] = []
    if due:
        header = header.model_copy(update={"clock_mark": min(due)})
        if ctx.config.reminder_before in due and not header.reminded:
            header = header.model_copy(update={"reminded": True})
            tr = ctx.tr(seat.lang)
            left = round(deadline - ctx.now)
            text = tr.n_("{n} second left for your move.", "{n} seconds left for your move.", left)
            reminder = message([line(text.format(n=left))])
            effects.append(
                Reply(ctx.chat_id, reminder, private=True, user_id=seat.user_id, tag=TURN_REMINDER)
            )
        if any(mark in ctx.config.clock_refresh for mark in due):
            header = header.model_copy(update={"clock_left": max(0.0, deadline - ctx.now)})
            effects.insert(0, current_hand(ctx, header, game, seat_no))
    header, next_due = next_deadline(ctx, header, game)
    return Decision(
        effects=effects,
        save=True,
        session=ChatSession(header=header, game=game),
        ttl=GAME_TTL,
        deadline=next_due,
    )


def closed_pause(ctx: Context, seat: Seat) -> float:
    """How much longer a new turn of ``seat`` waits because their hand cannot be delivered."""
    if seat.private_closed_at is None:
        return 0.0
    return max(0.0, seat.private_closed_at + CLOSED_PAUSE - ctx.now)


def retract_reminder(
    ctx: Context, old: Playing | None, old_game: Game | None, header: Playing | None, game: Game | None
) -> list[Effect]:
    """The reminder of a turn that has passed ("15 seconds left for your move."): ``old`` reminded the person
    acting in ``old_game``, and the game is past that turn now (a move or a timeout began another, it ended,
    or it is gone: ``header`` or ``game`` None). Nothing when no reminder was said."""
    if old is None or old_game is None or not old.reminded or old_game.to_act is None:
        return []
    if (
        header is not None
        and game is not None
        and header.game_id == old.game_id
        and header.turn_step == old.turn_step
        and not game.is_over
    ):
        return []
    seat = old.seats[old_game.to_act]
    return [Retract(ctx.chat_id, TURN_REMINDER, seat.user_id, private=True)]
