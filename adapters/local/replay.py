"""`durak-bot replay <game id>`: an archived game rebuilt from its settings, seed (or deck) and log, with the
group's table printed after every step by the same renderer the chats use."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from adapters.local.text import message_text
from bot.events import events_of_step, remember
from bot.i18n import translator
from bot.play import points_for
from bot.render.summary import render_result
from bot.render.table import render_table
from bot.session import Event, Playing, Seat
from core import Action, Card, Game, Settings, new_game
from storage.keys import ChatRef


class ArchiveError(ValueError):
    """The archived record cannot be read or does not replay."""


def seats_of(data: dict[str, Any]) -> list[Seat]:
    players = list(data["players"])
    described = data.get("seats") or [{"user_id": f"seat{n}", "ai": None} for n in range(len(players))]
    return [
        Seat(user_id=str(seat["user_id"]), name=name, ai=seat.get("ai"))
        for name, seat in zip(players, described, strict=True)
    ]


def first_position(archive_json: str) -> tuple[dict[str, Any], Game, list[tuple[int, str]], list[Seat]]:
    """The archived record, its game as dealt, its log and its seats; ArchiveError when it cannot be read."""
    try:
        data = json.loads(archive_json)
        settings = Settings.from_words(data.get("words", ""))
        deck = [Card.parse(c) for c in data["deck"]] if data.get("deck") else None
        game = new_game(
            settings,
            data["players"],
            seed=data.get("seed") if deck is None else None,
            deck=deck,
            dealer=data.get("dealer"),
            last_durak=data.get("last_durak"),
        )
        log = [(int(seat), str(code)) for seat, code in data["log"]]
        seats = seats_of(data)
    except (KeyError, TypeError, ValueError) as error:
        raise ArchiveError(f"the archived game cannot be read: {error}") from error
    return data, game, log, seats


def final_position(archive_json: str) -> tuple[Game, list[Event]]:
    """The archived game as it ended, and the public events of its last steps (as the table showed them):
    what a page shows of a game that is over (the stored chat keeps only who sat where)."""
    _data, game, log, _seats = first_position(archive_json)
    events: list[Event] = []
    for step in replayed(game, log):
        events = remember(events, events_of_step(step.before, step.seat, step.action, step.after))
        game = step.after
    return game, events


@dataclass(frozen=True, slots=True)
class Step:
    """One logged action applied again: the game before and after it."""

    number: int  # 1 for the first action
    seat: int
    action: Action
    before: Game
    after: Game


def replayed(game: Game, log: list[tuple[int, str]]) -> Iterator[Step]:
    """Each logged action applied by the engine in turn; ArchiveError at the first one that does not apply."""
    for number, (seat, code) in enumerate(log, start=1):
        try:
            action = Action.parse(code)
            after = game.apply(seat, action)
        except ValueError as error:
            raise ArchiveError(f"step {number} ({seat}, {code}) does not replay: {error}") from error
        yield Step(number, seat, action, game, after)
        game = after


def print_replay(archive_json: str, out: TextIO, lang: str = "en") -> None:
    """Print the game's table before the first move and after each step, then the result."""
    data, game, log, seats = first_position(archive_json)
    settings = game.settings
    tr = translator(lang)
    chat_id = chat_id_of(data.get("chat", ""))
    now = float(data.get("started_at") or 0)
    header = Playing(
        game_id=str(data.get("game_id", "replay")),
        creator=seats[0].user_id,
        seats=seats,
        chat_title=str(data.get("chat_title", "")),
        lang=lang,
        started_at=now,
    )
    out.write(tr._("Game {id} · {players}").format(id=header.game_id, players=", ".join(game.players)) + "\n")
    step_heading = tr._("Step {n}")
    out.write("\n" + step_heading.format(n=0) + "\n")
    out.write(message_text(render_table(header, game.view(None), chat_id, now, tr)) + "\n")
    for step in replayed(game, log):
        events = remember(header.events, events_of_step(step.before, step.seat, step.action, step.after))
        header = header.model_copy(update={"events": events})
        game = step.after
        out.write("\n" + step_heading.format(n=step.number) + "\n")
        out.write(message_text(render_table(header, game.view(None), chat_id, now, tr)) + "\n")
    if game.result is not None:
        points = points_for(game.result, settings.scoring, len(seats), settings.teams)
        result = render_result(game.result, seats, points, chat_id, header.game_id, tr)
        out.write("\n" + message_text(result) + "\n")


def chat_id_of(chat: str) -> str:
    """The archive names the chat as "tg:-100123"; buttons (not printed here) need a valid chat id."""
    try:
        chat_id = ChatRef.parse(chat).chat_id
    except ValueError:
        return "replay"
    return chat_id if chat_id.lstrip("-").isalnum() and len(chat_id) <= 24 else "replay"
