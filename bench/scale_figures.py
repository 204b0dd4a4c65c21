"""bench/telegram_scale.py's judges and figures: which step a message shows, which screens were left stale,
and the rows it prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from web_common import percentile

from adapters.telegram.deeplink import decode_start
from bot.payloads import parse
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_model import FakeChat, Version

TARGET = 2.0  # the next actor's p95 (s) a token's N must stay under
WRITES = ("sendMessage", "editMessageText", "deleteMessage")

Key = tuple[str, int]  # (game id, step)


def hand_step(version: Version) -> Key | None:
    """The (game, step) a hand's version offers moves for: its move buttons' payloads (core's lower-case
    action codes), None without any."""
    for row in (version.reply_markup or {}).get("inline_keyboard", []):
        for button in row:
            payload = parse(str(button.get("callback_data", "")))
            if payload is not None and payload.code[:1].islower():
                return payload.game_id, payload.step
    return None


def table_step(version: Version) -> Key | None:
    """The (game, step) a group's table shows: its "My hand" deep link's payload."""
    for row in (version.reply_markup or {}).get("inline_keyboard", []):
        for button in row:
            url = str(button.get("url", ""))
            if "?start=" in url:
                payload = parse(decode_start(url.split("?start=", 1)[1]) or "")
                if payload is not None and payload.code == "H":
                    return payload.game_id, payload.step
    return None


def screen_step(chat: FakeChat, version: Version) -> Key | None:
    return table_step(version) if chat.is_group else hand_step(version)


@dataclass
class Press:
    group_id: int
    game_id: str
    step: int
    at: float  # virtual seconds


@dataclass
class Result:
    games: int
    processes: int
    app: bool
    moves: int
    writes: int
    rate_limited: int
    rate_limited_all: int
    next_samples: list[float]
    table_samples: list[float]
    stale: int
    stale_examples: list[str]
    setup_seconds: float
    window: float
    refused_presses: int
    load: float
    dealt: int  # games dealt in time (a lobby that never filled, e.g. a lost edit, leaves its game out)
    stuck: list[str]
    kinds: Counter[str]  # the writes by chat kind and method
    not_modified: int = 0  # edits Telegram answered "message is not modified" (the bot should make none)
    live_hands: list[str] = field(default_factory=list)  # private chats left with more than one live hand

    @property
    def writes_per_move(self) -> float:
        return self.writes / self.moves if self.moves else 0.0


def stale_screens(fake: FakeTelegram) -> list[str]:
    """Messages whose current version shows an older step than the newest any message of that chat showed
    for the same game."""
    found = []
    for chat in fake.chats.values():
        newest: dict[str, int] = {}
        for message in chat.messages.values():
            if message.from_bot:
                for version in message.versions:
                    if (key := screen_step(chat, version)) is not None:
                        newest[key[0]] = max(newest.get(key[0], -1), key[1])
        for message in chat.messages.values():
            if message.from_bot and not message.deleted:
                key = screen_step(chat, message.current)
                if key is not None and key[1] < newest[key[0]]:
                    steps = [
                        shown[1] for v in message.versions if (shown := screen_step(chat, v)) is not None
                    ]
                    found.append(
                        f"chat {chat.id} message {message.message_id} of game {key[0]} shows step {key[1]} < "
                        f"{newest[key[0]]}; its versions' steps: {steps}"
                    )
    return found


def not_modified(fake: FakeTelegram) -> int:
    """Edits the fake answered "message is not modified", over the whole run."""
    return sum(1 for r in fake.call_log if r.status == 400 and "not modified" in r.description)


def several_live_hands(fake: FakeTelegram) -> list[str]:
    """Private chats showing more than one message with buttons to press (one live hand a person)."""
    found = []
    for chat in fake.chats.values():
        if chat.is_group:
            continue
        live = [
            message.message_id
            for message in chat.messages.values()
            if message.from_bot
            and not message.deleted
            and any("callback_data" in b for b in message.buttons())
        ]
        if len(live) > 1:
            found.append(f"chat {chat.id}: messages {live} show buttons")
    return found


def seconds_or_none(samples: list[float]) -> str:
    """The p95 of ``samples``; "-" without any (Mini App play: the group's table waits for someone going out)."""
    return f"{percentile(samples, 0.95):.2f}" if samples else "-"


def print_row(row: Result) -> None:
    print(
        f"{row.games:>5} {row.processes:>5} {row.moves:>6} {row.writes_per_move:>11.2f} {row.rate_limited:>4} "
        f"{row.rate_limited_all:>7} {percentile(row.next_samples, 0.5):>8.2f} "
        f"{percentile(row.next_samples, 0.95):>8.2f} {seconds_or_none(row.table_samples):>9} "
        f"{row.stale:>5} {row.dealt:>5} {row.setup_seconds:>7.0f} {row.load:>5.1f} {row.not_modified:>7} "
        f"{len(row.live_hands):>5}",
        flush=True,
    )
    if row.moves:
        shares = ", ".join(f"{kind} {count / row.moves:.2f}" for kind, count in sorted(row.kinds.items()))
        print(f"      writes a move: {shares}")
    for example in row.stale_examples:
        print(f"      stale: {example}")
    for example in row.live_hands[:3]:
        print(f"      two live hands: {example}")
    for reason in row.stuck:
        print(f"      left out: {reason}")


def largest(rows: list[Result]) -> str:
    parts = []
    for processes in sorted({row.processes for row in rows}):
        fine = [
            row.games
            for row in rows
            if row.processes == processes and percentile(row.next_samples, 0.95) < TARGET
        ]
        parts.append(
            f"{max(fine) if fine else 'none measured'} ({processes} process{'es' if processes > 1 else ''})"
        )
    return ", ".join(parts)
