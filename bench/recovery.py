"""What catching up costs a process starting up: N running games on a real redis-server, checked and shown again.

    python bench/recovery.py [--games 500]

Each game is two people, dealt through the service. First no screen was recorded as delivered (a process
died with all of them queued): every game is drawn again. Then every screen is recorded as delivered (what
the adapters write): each game is only checked. Printed: games shown again, the whole pass, per game.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import outbox  # noqa: E402
from bot.context import ServiceConfig  # noqa: E402
from bot.effects import Effect, ShowHand, ShowTable  # noqa: E402
from bot.inputs import Command, Press, TimerDue, User  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.timers import catch_up_platform  # noqa: E402
from storage import ChatRef
from storage.connect import client_for_url  # noqa: E402
from storage.embedded import RedisServer  # noqa: E402
from storage.store import RedisGameStore  # noqa: E402


def tapped(effects: list[Effect], code: str) -> str:
    table = next(e for e in effects if isinstance(e, ShowTable)).message
    return next(b.payload for row in table.buttons for b in row if b.payload.endswith(f"|{code}"))


async def deal(service: GameService, chat: str) -> list[Effect]:
    ann, bob = User(f"a{chat}", "Ann"), User(f"b{chat}", "Bob")
    lobby = await service.handle(Command("tg", chat, ann, "newgame"))
    joined = await service.handle(Press("tg", bob, tapped(lobby, "J")))
    return await service.handle(Press("tg", ann, tapped(joined, "S")))


async def delivered(store: RedisGameStore, chat: str, effects: list[Effect]) -> None:
    marks: dict[str, str | None] = {}
    for effect in effects:
        if isinstance(effect, ShowTable):
            marks |= outbox.table_mark(effect.version)
        elif isinstance(effect, ShowHand):
            marks |= outbox.hand_mark(effect.user_id, effect.version, effect.message)
    await store.set_messages(ChatRef("tg", chat), marks)


async def timed_pass(service: GameService, label: str, games: int) -> None:
    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        pass

    begin = time.perf_counter()
    shown = await catch_up_platform(service, "tg", deliver)
    seconds = time.perf_counter() - begin
    print(f"{label:<28} {shown:>6} {seconds * 1000:>9.0f} {seconds / games * 1e6:>10.0f}")


async def main(games: int) -> None:
    server = RedisServer(Path(tempfile.mkdtemp(prefix="durak-bench-")) / "redis")
    server.start()
    client = client_for_url(server.url)
    try:
        store = RedisGameStore(client)
        service = GameService(store, ServiceConfig(ai_delay=0))
        dealt = {f"-{1000 + n}": await deal(service, f"-{1000 + n}") for n in range(games)}
        print(f"{games} running games of two people, real redis-server on a unix socket")
        print(f"{'screens recorded':<28} {'shown':>6} {'pass ms':>9} {'us a game':>10}")
        await timed_pass(service, "none (all queued, lost)", games)
        for chat, effects in dealt.items():
            await delivered(store, chat, effects)
        await timed_pass(service, "all (delivered)", games)
    finally:
        await client.aclose()
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    asyncio.run(main(parser.parse_args().games))
