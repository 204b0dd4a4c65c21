"""A finished game step by step, as the replay page shows it: every hand shown, since after the game nothing is
secret.

Rebuilt from the game's archive (kept 30 days, `storage.store.ARCHIVE_TTL`) by the engine itself: the game
as dealt from its settings, seed or deck (`bot.game.archive.first_position`, which `durak-bot replay`
uses too), then each logged action through `Game.apply`. Nothing here knows a rule: a step's position is
what the engine's game holds after it, its move line what the chat's table said of it
(`bot.game.last_actions`, `bot.render.table.describe_event`).

Built here, in the bot, because it holds a `core.Game`: an adapter is handed the finished game's JSON and never
a game (docs/adapters.md); `adapters.web.replay` adds the page's ref, caches the bytes and serves them. Who
may watch: the people seated in the game (its AI seats aside), as the archive names them, asking from the
chat the game was played in (`bot.game.archive.Archived.may_watch`, asked through `bot.queries`). See
docs/webapp.md, "Replays".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from bot.effects import Message
from bot.game.archive import (
    ArchiveError,
    announced_result,
    chat_id_of,
    first_position,
    replayed,
    result_message,
)
from bot.game.last_actions import events_of_step, remember
from bot.i18n import Translator, translator
from bot.render.lobby import seat_label
from bot.render.rules import rules_in_short
from bot.render.table import describe_event, render_table
from bot.session import Playing, Seat
from core import Action, Game, Kind
from core.cards import CARDS, deck_ids
from core.commitment import CHECKS
from core.events import Drew, TrumpsChanged
from core.view import build_view

State = dict[str, Any]


def replay_state(
    record: str, lang: str, pause: Callable[[], object] = lambda: None, analysis: bool = False
) -> State:
    """The replay's JSON: the players, every step's full position and move line, the result, the page's
    labels, and what the page's check of the sealed deal needs. ArchiveError when the record does not replay,
    unless its deal is sealed: then the steps stop before the move that does not replay, and the page's check
    says which it is (as `durak-bot verify` does). ``pause`` is called after every step. ``analysis``: the
    server has AI workers to analyse the game (GET api/analysis; not under `durak-bot play --web`), so the
    page offers it."""
    data, game, log, seats = first_position(record)
    dealt = game
    chat_id = chat_id_of(str(data.get("chat", "")))
    tr = translator(lang)
    names = [seat.name for seat in seats]
    steps = [position(game, 0, None, [tr._("The cards are dealt.")])]
    try:
        for step in replayed(game, log):
            lines = move_lines(step.before, step.seat, step.action, step.after, names, tr)
            steps.append(position(step.after, step.number, step.seat, lines, refill(step.after)))
            game = step.after
            pause()
    except ArchiveError:
        if not data.get("deal"):
            raise
    game_id = str(data.get("game_id", ""))
    return {
        "chat_id": chat_id,  # with the game's id, what the page's ref names (`adapters.web.replay`)
        "game_id": game_id,
        "lang": tr.lang,
        "title": " · ".join([tr._("Durak"), *rules_in_short(game.settings, tr)]),
        "finished_at": data.get("finished_at"),
        "trump": game.trump,
        "players": [{"name": seat_label(seat.name, seat.ai, tr), "ai": seat.is_ai} for seat in seats],
        "steps": steps,
        "result": result_lines(game, seats, chat_id, game_id, tr),
        "deal": data.get("deal"),  # the seal opened: commitment, salt and order (docs/fairness.md)
        "check": deal_check(data, dealt, game, len(log)),
        "labels": labels(tr),
        "analysis": analysis,
    }


def deal_check(data: dict[str, Any], dealt: Game, ended: Game, moves: int) -> State:
    """What the page's check of the sealed deal (static/seal.js) needs besides the positions: the checks to
    make, by name (`core.commitment.CHECKS`, the ones `durak-bot verify` makes), the deck's cards, the dealer
    and the card turned up at the deal, how many moves the record holds, the result the record announced and
    the one its moves reached (None when they did not finish the game)."""
    try:
        announced: State | None = outcome(*announced_result(data))
    except (KeyError, TypeError, ValueError, AttributeError):
        announced = None
    reached = ended.result
    return {
        "names": list(CHECKS),
        "deck": [str(CARDS[card]) for card in deck_ids(dealt.settings.deck)],
        "dealer": dealt.dealer,
        "turned_up": str(dealt.deal_trump_card),
        "moves": moves,
        "announced": announced,
        "reached": outcome(reached.durak, reached.draw, reached.order_out) if reached else None,
    }


def outcome(durak: int | None, draw: bool, order_out: tuple[int, ...]) -> State:
    """A result as the page's check compares it: the durak's seat, whether it was a draw, the places."""
    return {"durak": durak, "draw": draw, "order_out": list(order_out)}


def move_lines(
    before: Game, seat: int, action: Action, after: Game, names: list[str], tr: Translator
) -> list[str]:
    """What the table said of the step, led by the choice itself where the table says only its outcome (a
    take shows when the bout ends, a pass not at all)."""
    lines = [describe_event(event, names, tr) for event in events_of_step(before, seat, action, after)]
    if action.kind is Kind.TAKE:
        # TRANSLATORS: the replay's move list: the defender gave up the bout (the cards come later)
        lines.insert(0, tr._("{who} chose to take the cards").format(who=names[seat]))
    elif action.kind is Kind.PASS:
        # TRANSLATORS: the replay's move list: an attacker threw in nothing more
        lines.insert(0, tr._("{who} passed").format(who=names[seat]))
    return lines


def refill(after: Game) -> list[tuple[int, int]]:
    """Who drew how many cards from the talon in the step that ended at ``after``, in the order they drew
    (the engine's `Drew` events): what the page's check of the sealed deal (static/seal.js) follows."""
    return [
        (event.seat, event.number)
        for _step, event in after.events(since=after.step)
        if isinstance(event, Drew)
    ]


def severny_turn_up(after: Game) -> str | None:
    """The card a Severny draw turned up (the talon's last face-down card, which sets trumps) in the step
    that ended at ``after``, or None: which of a seat's new cards it was is for the page's check to compare."""
    for _step, event in after.events(since=after.step):
        if isinstance(event, TrumpsChanged):
            return str(CARDS[event.card])
    return None


def position(
    game: Game, step: int, seat: int | None, lines: list[str], drawn: list[tuple[int, int]] | None = None
) -> State:
    """The whole position after a step: every hand, the table, the talon and the discard pile, and who drew
    how many cards in it."""
    view = build_view(game, None)  # the public part; the hands come from the game, all of them
    shown_trump = view.severny_card if view.severny_card is not None else view.trump_card
    return {
        "step": step,
        "seat": seat,
        "move": lines,
        "hands": [[str(card) for card in game.hand(number)] for number in range(game.n_players)],
        "table": [[str(attack), str(cover) if cover is not None else None] for attack, cover in view.table],
        "trump": view.trump,
        "trump_card": str(shown_trump) if shown_trump is not None else None,
        "talon": view.talon_size,
        "discard": view.discard_size,
        "attacker": view.attacker,
        "defender": view.defender,
        "to_act": view.to_act,
        "out": list(view.out),
        "over": view.is_over,
        "drawn": [list(entry) for entry in drawn or []],
        "severny": severny_turn_up(game) if step else None,
    }


def result_lines(game: Game, seats: list[Seat], chat_id: str, game_id: str, tr: Translator) -> list[str]:
    """The result as the chat showed it (without the rating changes, which the archive does not keep)."""
    message = result_message(game, seats, chat_id, game_id, tr)
    if message is None:
        return []
    return [text for text in ("".join(span.text for span in line) for line in message.lines) if text]


def labels(tr: Translator) -> dict[str, str]:
    """The replay page's own words (the game page's labels are `adapters.web.strings`)."""
    _ = tr._
    return {
        # TRANSLATORS: the replay page's heading
        "replay": _("Replay"),
        # TRANSLATORS: the replay page: where the slider is, "Step 12 of 80"
        "step": _("Step {n} of {total}"),
        "previous": _("Previous"),
        "next": _("Next"),
        # TRANSLATORS: the replay page: the list of every move of the game
        "moves": _("Moves"),
        "talon": _("Talon"),
        "discard": _("Discarded"),
        "trump": _("Trump"),
        "out": _("out"),
        # TRANSLATORS: the replay page: the deal's seal (docs/fairness.md) checked in the browser
        "seal_ok": _(
            "Deal checked: the seal shown at the start matches, and every card dealt and drawn came from the "
            "sealed deck."
        ),
        "seal_bad": _("Deal check failed: the revealed deck does not give the seal shown at the start."),
        "deal_bad": _("Deal check failed: the cards dealt are not the ones the sealed deck deals."),
        "draws_bad": _(
            "Deal check failed: at step {step} a card came that the sealed deck did not hold there."
        ),
        "moves_bad": _("Deal check failed: move {step} is not possible with the sealed deck."),
        "result_bad": _(
            "Deal check failed: the game dealt from the sealed deck does not end with the announced result."
        ),
        "seal_none": _("This game was dealt before deals were sealed."),
        # TRANSLATORS: the replay page: before the 64-hexadecimal-digit hash of the deck's order
        "seal": _("Seal"),
        # TRANSLATORS: the replay page: a button that asks the hard AI to judge each player's decisions
        "analyse": _("Analyse the decisions"),
        # TRANSLATORS: the replay page, while the analysis is computed
        "analysing": _("Analysing the game: {done} of {total} decisions…"),
        "analysis_failed": _("The analysis could not be made: try again later."),
    }


def replay_screens(record: str, lang: str) -> Iterator[tuple[str, Message]]:
    """`durak-bot replay <id>` in the terminal: a heading naming the game, then the group's table before the
    first move and after each step, each under its "Step n" heading, drawn by the renderer the chats use;
    last, the result under an empty heading. ArchiveError when the record does not replay."""
    data, game, log, seats = first_position(record)
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
    title = tr._("Game {id} · {players}").format(id=header.game_id, players=", ".join(game.players))
    step_heading = tr._("Step {n}")
    yield title + "\n\n" + step_heading.format(n=0), render_table(header, game.view(None), chat_id, tr)
    for step in replayed(game, log):
        events = remember(header.events, events_of_step(step.before, step.seat, step.action, step.after))
        header = header.model_copy(update={"events": events})
        game = step.after
        yield step_heading.format(n=step.number), render_table(header, game.view(None), chat_id, tr)
    result = result_message(game, seats, chat_id, header.game_id, tr)
    if result is not None:
        yield "", result
