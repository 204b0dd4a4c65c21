"""The store on a local 3-node Redis Cluster: the store suite again, plus proof that a chat stays in one slot.

The cluster is made of real redis-server processes on loopback ports, joined with `redis-cli --cluster
create`; every test here is skipped (with the reason) if that cannot be done on this machine.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from bot.platforms import PLATFORMS
from storage import ChatRef
from storage import keys as k
from storage.models import GameOutcome, PlayerOutcome
from storage.store import RedisGameStore
from tests.storage import (
    test_concurrency,
    test_pace,
    test_ratings_store,
    test_recovery,
    test_running_chats,
    test_store,
)
from tests.storage.cluster_nodes import LocalCluster

pytestmark = pytest.mark.redis_server

# Every store test that takes the `store` fixture runs here too, with `store` on the cluster.
for _suite in (
    test_store,
    test_concurrency,
    test_running_chats,
    test_recovery,
    test_ratings_store,
    test_pace,
):
    for _name, _test in vars(_suite).items():
        if _name.startswith("test_") and "store" in inspect.signature(_test).parameters:
            globals()[_name] = _test


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    try:
        cluster = LocalCluster(Path(tmp_path_factory.mktemp("cluster")))
    except (FileNotFoundError, RuntimeError) as error:
        pytest.skip(f"cannot set up a Redis Cluster here: {error}")
    try:
        cluster.start()
    except (OSError, RuntimeError, TimeoutError) as error:
        cluster.stop()
        pytest.skip(f"cannot create a local Redis Cluster: {error}")
    yield cluster
    cluster.stop()


@pytest.fixture
async def cluster_client(local_cluster: LocalCluster) -> AsyncIterator[RedisCluster]:
    local_cluster.flush()
    client = RedisCluster(host="127.0.0.1", port=local_cluster.ports[0], decode_responses=True)
    await client.initialize()  # as open_store does: a lazily started client gets MOVED under concurrency
    yield client
    await client.aclose()


@pytest.fixture
def store(cluster_client: RedisCluster) -> RedisGameStore:
    return RedisGameStore(cluster_client, counting_versions=True)


async def test_the_store_knows_it_runs_on_a_cluster(store: RedisGameStore) -> None:
    assert store.cluster


async def test_all_of_a_chats_keys_share_one_slot_and_chats_spread_over_every_node(
    store: RedisGameStore, cluster_client: RedisCluster
) -> None:
    chats = [ChatRef("tg", f"-100{n}") for n in range(30)]
    for n, chat in enumerate(chats):
        game = GameOutcome(
            f"g{n}", "{}", [PlayerOutcome("u1", "Ann", durak=True), PlayerOutcome("u2", "Bob")]
        )
        await store.save(chat, 0, "over", ttl=600, outcome=game, last_durak="u1")
        await store.save(chat, 1, f"game {n}", ttl=600, deadline=float(n))
        await store.set_messages(chat, {"table": str(n)})
        await store.set_chat_settings(chat, words="transfer")
    nodes = set()
    for n, chat in enumerate(chats):
        chat_keys = await cluster_client.keys(f"durak:{{{chat}}}:*", target_nodes=RedisCluster.ALL_NODES)
        assert len(chat_keys) >= 10
        assert len({await cluster_client.cluster_keyslot(key) for key in chat_keys}) == 1
        nodes.add(cluster_client.get_node_from_key(k.state_key(chat)).name)
        assert (await store.load(chat)).state == f"game {n}"
        assert [s.user_id for s in await store.stats(chat)] == ["u2", "u1"]  # no points: the durak last
    assert len(nodes) == 3
    assert sorted(await store.claim_due_timers(100.0, platforms=PLATFORMS)) == sorted(
        (chat, 2) for chat in chats
    )
    assert await store.archived_game("g7") == "{}"


async def test_load_and_save_with_a_deadline_take_three_round_trips_on_a_cluster(
    store: RedisGameStore,
) -> None:
    await store.load(ChatRef("tg", "1"))
    await store.save(ChatRef("tg", "1"), 0, "lobby", ttl=600)
    before = store.round_trips
    record = await store.load(ChatRef("tg", "1"))
    await store.save(ChatRef("tg", "1"), record.version, "game", ttl=600, deadline=5.0)
    assert store.round_trips - before == 3


async def test_open_store_with_a_cluster_url_talks_to_the_cluster(local_cluster: LocalCluster) -> None:
    from storage.connect import open_store

    local_cluster.flush()
    store, close = await open_store(f"redis://127.0.0.1:{local_cluster.ports[1]}?cluster=yes")
    try:
        assert store.cluster
        version = await store.save(ChatRef("tg", "9"), 0, "lobby", ttl=60, deadline=1.0)
        assert version is not None
        assert (await store.load(ChatRef("tg", "9"))).state == "lobby"
        assert await store.claim_due_timers(2.0, platforms=PLATFORMS) == [(ChatRef("tg", "9"), version)]
    finally:
        await close()
