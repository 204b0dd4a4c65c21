"""Every Discord REST call the bot makes is counted (adapters/discord/tracing.py): by verb and route without
ids or tokens, a 429 that discord.py waits out counted as the refused call plus the retry."""

from __future__ import annotations

import re
from collections import Counter

from yarl import URL

from adapters.discord.tracing import route_of
from bot.runtime import metrics
from storage.store import RedisGameStore
from tests.discord.table import Table
from tests.fakes.discord_gateway import FakeDiscord
from tests.prometheus import prometheus  # noqa: F401  (the fixture)

TABLE_EDIT = r"^/channels/\d+/messages/\d+$"


def test_routes_lose_their_ids_and_tokens_so_labels_stay_few() -> None:
    api = "https://discord.com/api/v10"
    assert route_of("patch", URL(f"{api}/channels/12/messages/34")) == "PATCH channels/{id}/messages/{id}"
    assert route_of("POST", URL(f"{api}/interactions/56/aW50ZXJh-Y3Rpb24/callback")) == (
        "POST interactions/{id}/{token}/callback"
    )
    assert route_of("PATCH", URL(f"{api}/webhooks/78/tok.en/messages/@original")) == (
        "PATCH webhooks/{id}/{token}/messages/@original"
    )
    assert route_of("GET", URL("wss://gateway.discord.gg/?v=10&encoding=json")) is None


async def test_every_rest_call_and_each_429_is_counted_by_route(
    prometheus: metrics.PrometheusMetrics,  # noqa: F811  (given to the client before it connects)
    discord_api: FakeDiscord,
    store: RedisGameStore,
) -> None:
    table = Table(discord_api, store, metrics=prometheus)
    await table.start()
    ann, bob = table.fake.add_user("Ann"), table.fake.add_user("Bob")
    await table.slash(ann, "new")
    await table.press_label(bob, await table.table_message(), "Join")
    table.fake.inject_rate_limit("PATCH", TABLE_EDIT, retry_after=0.05)  # discord.py waits it out
    await table.press_label(ann, await table.table_message(), "Start")
    await table.settle()
    made = Counter(route_of(r.method, URL(f"http://fake/api/v10{r.path}")) for r in table.fake.requests)
    counted: Counter[str | None] = Counter()
    for family in prometheus.registry.collect():
        for sample in family.samples:
            if sample.name == "durak_platform_api_calls_total":
                assert sample.labels["platform"] == "dc"
                counted[sample.labels["method"]] += int(sample.value)
    assert counted == made and made["POST interactions/{id}/{token}/callback"] == 3
    assert not [route for route in counted if route and re.search(r"\d{3}", route)], "no ids in labels"
    sample = prometheus.registry.get_sample_value
    edits = {"platform": "dc", "method": "PATCH channels/{id}/messages/{id}"}
    assert sample("durak_platform_api_calls_total", edits | {"status": "429"}) == 1
    assert sample("durak_platform_api_429_total", {"platform": "dc"}) == 1
    assert sample("durak_platform_api_calls_total", edits | {"status": "200"}) >= 1, "the retry"
