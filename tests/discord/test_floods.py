"""A flood of slash commands on Discord: each is answered (Discord wants every interaction answered), but
past the user's burst only with an ephemeral refusal that cost no Redis call and put nothing in the channel.

Interaction answers go through the interaction's own webhook, not the channel's message routes, so they
never queue in front of a table edit; the per-user limit is what keeps a flood from busying Redis.
"""

from __future__ import annotations

from adapters.discord.hands import HandRegistry
from bot.runtime.ratelimit import COMMAND_BURST, command_limiter
from tests.discord.table import Table

LIMITED = "Too many commands: wait a moment."
FLOOD = 12


async def test_a_flood_of_commands_is_refused_privately_without_redis_or_channel_messages(
    table: Table,
) -> None:
    assert table.client is not None
    table.client.service.commands = command_limiter()
    eve = table.fake.add_user("Eve")
    public_before = len(table.fake.public_messages(table.channel))
    answers = [await table.slash(eve, "stats") for _ in range(int(COMMAND_BURST))]  # /stats answers in public
    assert not any(a["data"].get("content") == LIMITED for a in answers), "a burst is allowed"
    trips_before = table.store.round_trips
    refused = [await table.slash(eve, "stats") for _ in range(FLOOD)]
    assert all(a["data"].get("content") == LIMITED and a["data"]["flags"] == 64 for a in refused[1:]), (
        "only Eve sees the refusals"
    )
    assert table.store.round_trips - trips_before <= 2, "refused commands cost no Redis call"
    assert len(table.fake.public_messages(table.channel)) - public_before <= COMMAND_BURST + 1


def test_the_language_cache_keeps_the_most_recent_users_only() -> None:
    hands = HandRegistry(users=100)
    for user in range(1000):
        hands.langs[str(user)] = "ru"
        assert len(hands.langs) <= 100
    assert hands.lang("999") == "ru" and hands.lang("0") == "en", (
        "a forgotten user reads as English until seen"
    )
