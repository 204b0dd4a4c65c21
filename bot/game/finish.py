"""The end of a game: it is counted once (points, ratings and its archive go in the same atomic save), the
result is said, and the chat gets a finished game to rematch from. Pure: see `Decision`."""

from __future__ import annotations

from bot import ratings
from bot.context import Context
from bot.decision import FINISHED_TTL, Decision
from bot.effects import Notice
from bot.game.archive import archive, seal_of
from bot.game.scoring import points_for
from bot.game.screens import screen_changes
from bot.render.summary import render_result
from bot.session import ChatSession, Finished, Playing
from core import Game
from storage.models import GameOutcome, PlayerOutcome


def finish(ctx: Context, before: ChatSession | None, header: Playing, game: Game) -> Decision:
    """Count the game once (the store applies the outcome in the same atomic save) and offer a rematch."""
    result = game.result
    assert result is not None
    teams = game.settings.teams
    points = points_for(result, game.settings.scoring, len(header.seats), teams)
    first_out = result.order_out[0] if result.order_out else None
    losers = set(result.losers) if result.losers else {result.durak}
    changes = ratings.rated(result, header.seats, teams) or [None] * len(header.seats)
    outcome = GameOutcome(
        game_id=header.game_id,
        archive_json=archive(ctx, header, game),
        players=[
            PlayerOutcome(
                user_id=seat.user_id,
                name=seat.name,
                durak=seat_no in losers and not result.draw,
                first_out=not result.draw and (seat_no not in losers if teams else first_out == seat_no),
                draw=result.draw,
                points=points[seat_no],
                rating=change.after if (change := changes[seat_no]) is not None else None,
            )
            for seat_no, seat in enumerate(header.seats)
            if not seat.is_ai
        ],
        season=header.season,
    )
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
                deal=seal_of(header, game),
            ),
            final=True,
        )
    )
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
    )
    durak = header.seats[result.durak].user_id if result.durak is not None else None
    return Decision(
        effects=effects,
        save=True,
        session=ChatSession(header=finished),
        ttl=FINISHED_TTL,
        outcome=outcome,
        last_durak=durak,
        clear_last_durak=durak is None,
    )
