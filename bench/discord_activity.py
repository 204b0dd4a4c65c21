"""The Discord Activity: press-to-screen latency in Chromium, Discord API writes saved, and its screenshots.

    python bench/discord_activity.py [--moves 20] [--shots docs/img]

1. Latency. Three people in three Chromium contexts, each a "Discord client" page framing the Activity (the
   SDK's handshake played as tests/web/test_discord_activity_browser.py plays it, codes from the fake
   OAuth2 server) over fakeredis. The person to act taps a legal move; timed from the tap until every page
   shows the new step (each by its own WebSocket). Printed: p50 and worst over ``--moves`` taps.
2. Writes. On the fake Discord API with the real discord.py client, one seeded 3-player game played move by
   move by the normal AI: first through the channel's buttons (each player's ephemeral hand edited), then
   the same game through the service as the Activity's press sends it, with every player's Activity open
   (`bot.game.app_screens` holds their hands and mid-bout table edits back). Printed: Discord API writes
   (POST, PATCH, DELETE) per move in each.
3. Screenshots of the Activity inside the parent frame, to ``--shots``/discord-activity*.png.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any, cast

import fakeredis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.platforms import DISCORD
from storage import ChatRef
from storage.presence import mark_open  # noqa: E402
from storage.store import RedisGameStore  # noqa: E402
from tests.discord.table import Table  # noqa: E402
from tests.discord.test_activity import play_from_the_activity  # noqa: E402
from tests.discord.test_game import open_three_player_game, play_one_move  # noqa: E402
from tests.fakes.discord_gateway import running_fake_discord  # noqa: E402
from tests.web.activity import CHANNEL, GUILD, channel_harness, discord_side  # noqa: E402
from tests.web.browser import headless_chromium, my_turn, shown, tap_a_legal_move  # noqa: E402
from tests.web.pages import ANN, BOB, CAT  # noqa: E402
from tests.web.test_discord_activity_browser import LOCAL_FRAMES, activity_server, open_activity  # noqa: E402

WRITES = ("POST", "PATCH", "DELETE")


async def latency(moves: int, shots: Path | None) -> list[float]:
    redis = fakeredis.aioredis.FakeRedis()
    harness = channel_harness(redis)
    await harness.command(ANN, "newgame", "deck=36 timer=0")
    await harness.tap(BOB, "Join")
    await harness.tap(CAT, "Join")
    await harness.tap(ANN, "Start")
    took: list[float] = []
    async with (
        headless_chromium(LOCAL_FRAMES) as browser,
        discord_side(ANN, BOB, CAT) as fake,
        activity_server(harness, redis, fake) as base,
    ):
        instance = fake.launch(CHANNEL, GUILD, ANN.id, BOB.id, CAT.id)
        people = [
            await open_activity(browser, base, p, fake.authorize(p.id), instance) for p in (ANN, BOB, CAT)
        ]
        frames = [p.frame for p in people]
        for frame in frames:
            await frame.wait_for_selector("#app[data-phase=play]")
        if shots is not None:
            await people[0].page.screenshot(path=str(shots / "discord-activity.png"))
        while len(took) < moves:
            if (await shown(cast(Any, frames[0]))).get("phase") == "over":
                break
            acting = [f for f in frames if await my_turn(cast(Any, f))]
            if not acting:
                await asyncio.sleep(0.02)
                continue
            step = int((await shown(cast(Any, acting[0])))["step"])
            started = time.perf_counter()
            await tap_a_legal_move(cast(Any, acting[0]))
            for frame in frames:
                await frame.wait_for_function(
                    "s => Number(document.getElementById('app').dataset.step) > s"
                    " || document.getElementById('app').dataset.phase === 'over'",
                    arg=step,
                )
            took.append(time.perf_counter() - started)
        if shots is not None:
            await people[1].page.screenshot(path=str(shots / "discord-activity-bob.png"))
    return took


async def writes_per_move(moves: int) -> tuple[float, float]:
    """Discord API writes per move: chat play, then the Activity open for everyone."""
    figures = []
    for on_activity in (False, True):
        redis = fakeredis.aioredis.FakeRedis()
        async with running_fake_discord() as fake:
            table = Table(fake, RedisGameStore(redis))
            table.app_platforms = frozenset({DISCORD})
            await table.start(activity=True)
            assert table.client is not None
            players = await open_three_player_game(table)
            if on_activity:
                chat = ChatRef(DISCORD, table.channel)
                await mark_open(redis, [(chat, p.id, f"socket-{p.name}") for p in players])
            before = sum(len(fake.requests_to(method, "/")) for method in WRITES)
            played = 0
            while played < moves:
                if on_activity:
                    going = await play_from_the_activity(table, players)
                else:
                    going = await play_one_move(table, players, [])
                if not going:
                    break
                played += 1
            after = sum(len(fake.requests_to(method, "/")) for method in WRITES)
            figures.append((after - before) / max(1, played))
    return figures[0], figures[1]


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--shots", type=Path, default=None, help="folder for the screenshots")
    args = parser.parse_args()
    took = await latency(args.moves, args.shots)
    ms = sorted(t * 1000 for t in took)
    print(
        f"press-to-every-screen latency over {len(ms)} taps: p50 {statistics.median(ms):.0f} ms, worst {ms[-1]:.0f} ms"
    )
    chat, activity = await writes_per_move(args.moves)
    print(
        f"Discord API writes per move: {chat:.2f} in chat play, {activity:.2f} with everyone in the Activity"
    )


if __name__ == "__main__":
    asyncio.run(main())
