"""The end of a game: it is counted once (points, ratings and its archive go in the same atomic save), the
result is said, and the chat gets a finished game to rematch from. Pure: see `Decision`."""

from __future__ import annotations

from bot import ratings
from bot.context import Context
from bot.decision import FINISHED_TTL, Decision, show
from bot.effects import Alert, Notice, Reply
from bot.game.archive import archive, seal_of
from bot.game.clock import retract_reminder
from bot.game.scoring import counted, left_to_ai
from bot.game.screens import screen_changes
from bot.game.seats import retract_open_private
from bot.inputs import User
from bot.render.summary import RevealedSeal, deal_message, render_result
from bot.session import ChatSession, Finished, Playing
from core import Game
from storage.models import GameOutcome, LastDurak, PlayerOutcome


def finish(ctx: Context, before: ChatSession | None, header: Playing, game: Game) -> Decision:
    """Count the game once (the store applies the outcome in the same atomic save) and offer a rematch."""
    result = game.result
    assert result is not None
    teams = game.settings.teams
    by_ai = left_to_ai(header.seats)  # rules.md §9.6: the seats their owners did not finish
    stats = counted(result, game.settings.scoring, len(header.seats), teams, by_ai)
    points = [seat.points for seat in stats]
    changes = ratings.rated(result, header.seats, teams) or [None] * len(header.seats)
    outcome = GameOutcome(
        game_id=header.game_id,
        archive_json=archive(ctx, header, game),
        players=[
            PlayerOutcome(
                user_id=seat.user_id,
                name=seat.name,
                durak=stats[seat_no].durak,
                first_out=stats[seat_no].first_out,
                draw=stats[seat_no].draw,
                points=stats[seat_no].points,
                rating=change.after if (change := changes[seat_no]) is not None else None,
                ai_finished=stats[seat_no].by_ai,
            )
            for seat_no, seat in enumerate(header.seats)
            if not seat.is_ai
        ],
        season=header.season,
    )
    deal = seal_of(header, game)
    effects = screen_changes(ctx, before, header.model_copy(update={"turn_deadline": None}), game)
    effects.append(
        Notice(
            ctx.chat_id,
            render_result(
                result,
                header.seats,
                points,
                ctx.chat_id,
                header.game_id,
                ctx.tr(header.lang),
                changes,
                replay=ctx.opens_app,
                unrated=not ratings.compares_people(header.seats, teams),
                deal=deal,
            ),
            final=True,
        )
    )
    old_header = before.header if before is not None and isinstance(before.header, Playing) else None
    effects += retract_reminder(ctx, old_header, before.game if before is not None else None, None, None)
    effects += retract_open_private(ctx, header.seats)  # the game is over: no hand is waiting for them
    finished = Finished(
        game_id=header.game_id,
        creator=header.creator,
        seats=[
            seat.model_copy(update={"timeouts": 0, "autopilot": False, "rating": None})
            for seat in header.seats
        ],
        words=game.settings.to_words(),
        chat_title=header.chat_title,
        lang=header.lang,
        thread_id=header.thread_id,
        deal_commitment=deal.commitment if deal else "",
        deal_salt=deal.salt if deal else "",
        deal_order=deal.order if deal else "",
    )
    durak = header.seats[result.durak].user_id if result.durak is not None else None
    return Decision(
        effects=effects,
        save=True,
        session=ChatSession(header=finished),
        ttl=FINISHED_TTL,
        outcome=outcome,
        last_durak=durak if durak is not None else LastDurak.CLEAR,
    )


def deal_shown(ctx: Context, header: Finished, user: User) -> Decision:
    """The result's "The deal": the sealed order, to whoever pressed, in private (never in the group)."""
    tr = ctx.tr(user.lang)
    if not header.deal_order:
        return show(Alert(user.id, tr._("This game's deal was not sealed."), show_alert=True))
    deal = RevealedSeal(header.deal_commitment, header.deal_salt, header.deal_order)
    return show(Reply(ctx.chat_id, deal_message(deal, header.game_id, tr), private=True, user_id=user.id))
