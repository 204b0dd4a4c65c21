"""Sign-in floods against the Activity's route: how many calls reach Discord's /oauth2/token.

    python bench/discord_sign_in_flood.py [--requests 600]

The real `DiscordPages` (its `SignInGate` and `Breaker`, on the wall clock) in front of the fake Discord of
tests/fakes/discord_oauth.py, over loopback. Four floods, each on fresh pages, all requests sent at once:

1. junk: strings that are not shaped like a code, from one address;
2. one address: well-shaped codes Discord never gave out (each an invalid request at Discord);
3. many addresses: the same, each request from another address (X-Forwarded-For, as a proxy says);
4. 429: as 3, with Discord answering 429 (Retry-After 60 s) from the first call on.

Printed per flood: requests, seconds, calls to /oauth2/token, and our answers by status. The arithmetic of
10 minutes of flooding (what Discord counts towards its ban at 10,000 invalid requests) is in the docs.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import time
from collections import Counter
from pathlib import Path

import fakeredis
from aiohttp.test_utils import TestClient, TestServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.web.activity import CHANNEL, GUILD, activity_pages, channel_harness, discord_side  # noqa: E402
from tests.web.pages import ANN  # noqa: E402


async def flood(kind: str, requests: int) -> tuple[float, int, Counter[int]]:
    redis = fakeredis.aioredis.FakeRedis(decode_responses=True)
    harness = channel_harness(redis)
    await harness.command(ANN, "newgame", "deck=24 timer=0")
    async with discord_side(ANN) as fake:
        instance = fake.launch(CHANNEL, GUILD, ANN.id)
        if kind == "429":
            fake.rate_limit(60)
        pages, _ = activity_pages(harness, redis, fake)
        async with TestClient(TestServer(pages.app())) as client:

            async def one(n: int) -> int:
                code = "not a code!" if kind == "junk" else secrets.token_urlsafe(22)
                address = "203.0.113.7" if kind in ("junk", "one address") else f"198.51.{n // 250}.{n % 250}"
                answer = await client.post(
                    "/api/discord/session",
                    json={"code": code, "instance_id": instance},
                    headers={"X-Forwarded-For": address},
                )
                return answer.status

            started = time.perf_counter()
            statuses = await asyncio.gather(*(one(n) for n in range(requests)))
            took = time.perf_counter() - started
        calls = sum(path == "/oauth2/token" for _, path, _ in fake.requests)
    return took, calls, Counter(statuses)


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=600)
    args = parser.parse_args()
    print(f"{'flood':<16}{'requests':>9}{'seconds':>9}{'to Discord':>12}  our answers")
    for kind in ("junk", "one address", "many addresses", "429"):
        took, calls, statuses = await flood(kind, args.requests)
        answers = ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
        print(f"{kind:<16}{args.requests:>9}{took:>9.2f}{calls:>12}  {answers}")


if __name__ == "__main__":
    asyncio.run(main())
