"""bench/telegram_scale.py's judges and figures: which step a message shows, which screens were left stale,
and the rows it prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from web_common import percentile

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
    """The (game, step) a group's table shows: its "My hand" deep link's start payload,
    ``<chat>_<game>_<step>_H``."""
    for row in (version.reply_markup or {}).get("inline_keyboard", []):
        for button in row:
            url = str(button.get("url", ""))
            if "?start=" in url:
                parts = url.split("?start=", 1)[1].rsplit("_", 3)
                if len(parts) == 4 and parts[2].isdigit() and parts[3] == "H":
                    return parts[1], int(parts[2])
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


def seconds_or_none(samples: list[float]) -> str:
    """The p95 of ``samples``; "-" without any (Mini App play: the group's table waits for someone going out)."""
    return f"{percentile(samples, 0.95):.2f}" if samples else "-"


def print_row(row: Result) -> None:
    print(
        f"{row.games:>5} {row.processes:>5} {row.moves:>6} {row.writes_per_move:>11.2f} {row.rate_limited:>4} "
        f"{row.rate_limited_all:>7} {percentile(row.next_samples, 0.5):>8.2f} "
        f"{percentile(row.next_samples, 0.95):>8.2f} {seconds_or_none(row.table_samples):>9} "
        f"{row.stale:>5} {row.dealt:>5} {row.setup_seconds:>7.0f} {row.load:>5.1f}",
        flush=True,
    )
    if row.moves:
        shares = ", ".join(f"{kind} {count / row.moves:.2f}" for kind, count in sorted(row.kinds.items()))
        print(f"      writes a move: {shares}")
    for example in row.stale_examples:
        print(f"      stale: {example}")
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
