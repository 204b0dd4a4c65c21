"""An archived game: the record written when a game ends (`archive`, saved by `bot.game.finish`), and that
record read back and replayed by the engine, the writer beside its reader so the two agree on the format.

A game's archive (kept 30 days, `storage.store.ARCHIVE_TTL`) holds its settings, seats, seed or deck and log;
the game is dealt again from them and each logged action applied by `Game.apply`, so nothing here knows a
rule. Read by the web's replay and finished-game pages (through `bot.queries`) and by `durak-bot replay`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bot.context import Context
from bot.effects import Message
from bot.game.last_actions import events_of_step, remember
from bot.game.scoring import left_to_ai, points_for
from bot.i18n import Translator
from bot.render.summary import RevealedSeal, render_result
from bot.session import Playing, Seat, TableEvent
from core import Action, Card, Game, Settings, new_game
from core.commitment import PlayedGame, Verdict, dealt_order, deck_text, verify
from storage import ChatRef


def archive(ctx: Context, header: Playing, game: Game) -> str:
    """Enough to replay the game: settings, players, seed or deck, dealer, last durak and the log."""
    assert game.result is not None
    data: dict[str, object] = {
        "game_id": header.game_id,
        "chat": str(ctx.chat),
        "chat_title": header.chat_title,
        "words": game.settings.to_words(),
        "players": list(game.players),
        "seats": [{"user_id": s.user_id, "ai": s.ai} for s in header.seats],
        "seed": game.seed,
        "deck": None if game.seed is not None else [str(c) for c in dealt_order(game)],
        "dealer": game.dealer,
        "last_durak": game.last_durak,
        "log": [[seat, code] for seat, code in game.log],
        "result": {
            "durak": game.result.durak,
            "draw": game.result.draw,
            "order_out": list(game.result.order_out),
        },
        "started_at": header.started_at,
        "finished_at": ctx.now,
    }
    by_ai = left_to_ai(header.seats)
    if by_ai:  # the seats their owners did not finish (rules.md §9.6), so a replay scores them the same
        data["ai_finished"] = sorted(by_ai)
    seal = seal_of(header, game)
    if seal is not None:  # revealed now that the game is over (docs/fairness.md)
        data["deal"] = {"commitment": seal.commitment, "salt": seal.salt, "order": seal.order}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def seal_of(header: Playing, game: Game) -> RevealedSeal | None:
    """The deal's seal, opened now that the game is over (the result says it, the archive keeps it); None
    for a game started before deals were sealed."""
    if not header.deal_commitment:
        return None
    return RevealedSeal(header.deal_commitment, header.deal_salt, deck_text(dealt_order(game)))


@dataclass(frozen=True, slots=True)
class RevealedDeal:
    """A finished game's deal as its record reveals it: the commitment shown at the start, the salt and
    the order, and the game the record says was played (`core.commitment.verify` checks them together)."""

    commitment: str
    salt: str
    order: str
    played: PlayedGame

    def verdict(self) -> Verdict:
        """The checks of `core.commitment.CHECKS`, made offline; the first that fails is the verdict."""
        return verify(self.played, self.order, self.salt, self.commitment)


def revealed_deal(archive_json: str) -> RevealedDeal | None:
    """The deal a finished game's record reveals; None for a game started before deals were committed.
    ArchiveError when the record cannot be read."""
    data, game, log, _seats = first_position(archive_json)  # as the replay reads it
    deal = data.get("deal")
    if deal is None:
        return None
    try:
        durak, draw, order_out = announced_result(data)
        played = PlayedGame(
            settings=game.settings,
            players=game.players,
            dealer=game.dealer,
            last_durak=game.last_durak,
            log=tuple(log),
            durak=durak,
            draw=draw,
            order_out=order_out,
            deck=tuple(dealt_order(game)),
        )
        return RevealedDeal(str(deal["commitment"]), str(deal["salt"]), str(deal["order"]), played)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ArchiveError(f"the archived game cannot be read: {error}") from error


def announced_result(data: dict[str, Any]) -> tuple[int | None, bool, tuple[int, ...]]:
    """The result a record says the game ended with (durak, draw, places): what the chat was told, which the
    deal's check holds the replayed game to (by `durak-bot verify` and the replay page alike)."""
    result = data["result"]
    return (
        result.get("durak"),
        bool(result.get("draw")),
        tuple(int(seat) for seat in result.get("order_out", [])),
    )


class ArchiveError(ValueError):
    """The archived record cannot be read or does not replay."""


@dataclass(frozen=True, slots=True)
class Archived:
    """An archived game as a replay needs it: where it was played, who played it, its record."""

    chat: str  # as the archive names it: "tg:-100123"
    people: frozenset[str]  # the user ids of its seated people (AI seats are not people)
    record: str  # the archive's JSON

    @classmethod
    def read(cls, record: str) -> Archived:
        """ArchiveError when the record is not an archived game."""
        try:
            data = json.loads(record)
            seats = data.get("seats") or []
            people = frozenset(str(seat["user_id"]) for seat in seats if not seat.get("ai"))
            return cls(str(data["chat"]), people, record)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ArchiveError(f"the archived game cannot be read: {error}") from error

    def may_watch(self, chat: ChatRef, user_id: str) -> bool:
        """Only someone who played this game, asking from the chat it was played in."""
        return self.chat == str(chat) and user_id in self.people


@dataclass(frozen=True, slots=True)
class FinalGame:
    """A finished game's last position, rebuilt from its archive (the chat stores only who sat where)."""

    game: Game
    events: list[TableEvent]
    by_ai: frozenset[int] = frozenset()  # the seats the AI finished for their owners (rules.md §9.6)


def finished_by_ai(archive_json: str) -> frozenset[int]:
    """The seats an archived game's record says the AI played to their end for their owners (rules.md §9.6):
    the chat's finished game keeps who sat where, not who was on autopilot as it ended."""
    try:
        return frozenset(int(seat) for seat in json.loads(archive_json).get("ai_finished") or ())
    except (TypeError, ValueError, AttributeError) as error:
        raise ArchiveError(f"the archived game cannot be read: {error}") from error


def seats_of(data: dict[str, Any]) -> list[Seat]:
    """The archived seats, each person's seat the AI finished for them on autopilot as the game ended."""
    players = list(data["players"])
    described = data.get("seats") or [{"user_id": f"seat{n}", "ai": None} for n in range(len(players))]
    by_ai = {int(seat) for seat in data.get("ai_finished") or ()}  # written by `archive`
    return [
        Seat(user_id=str(seat["user_id"]), name=name, ai=seat.get("ai"), autopilot=number in by_ai)
        for number, (name, seat) in enumerate(zip(players, described, strict=True))
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


def final_position(archive_json: str) -> tuple[Game, list[TableEvent]]:
    """The archived game as it ended, and the public events of its last steps (as the table showed them):
    what a page shows of a game that is over (the stored chat keeps only who sat where)."""
    _data, game, log, _seats = first_position(archive_json)
    events: list[TableEvent] = []
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


def result_message(
    game: Game, seats: list[Seat], chat_id: str, game_id: str, tr: Translator
) -> Message | None:
    """The replayed game's result as the chat showed it (without the rating changes, which the archive does
    not keep); None when the log stops before the end. `durak-bot replay` and the replay page say it alike."""
    if game.result is None:
        return None
    settings = game.settings
    points = points_for(game.result, settings.scoring, len(seats), settings.teams, left_to_ai(seats))
    return render_result(game.result, seats, points, chat_id, game_id, tr)


def chat_id_of(chat: str) -> str:
    """The archive names the chat as "tg:-100123"; buttons (not pressed in a replay) need a valid chat id."""
    try:
        chat_id = ChatRef.parse(chat).chat_id
    except ValueError:
        return "replay"
    return chat_id if chat_id.lstrip("-").isalnum() and len(chat_id) <= 24 else "replay"
