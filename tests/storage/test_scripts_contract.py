"""The SAVE script and the store keep to one table of its KEYS and ARGV (`scripts.SAVE_ARGUMENTS`).

The script reads every index through a name its prelude defines from the table, never a number; every name
in the table is read; and what the store passes under each name is what the script reads under it (a probe
script with the same prelude reads the store's own call back, on fakeredis and a real redis-server).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
import redis.asyncio as aioredis

from storage import ChatRef
from storage import keys as k
from storage.arguments import ArgumentTable
from storage.models import GameOutcome, PlayerOutcome, SaveRequest
from storage.save import ARCHIVE_TTL, REQUEST_TTL
from storage.scripts import SAVE, SAVE_ARGUMENTS, SAVE_COUNTING, Script
from storage.store import RedisGameStore

CHAT = ChatRef("tg", "-100123")
TABLE = SAVE_ARGUMENTS
INDEX = re.compile(r"\b(KEYS|ARGV)\[([^\]]*)\]")
CONSTANT = re.compile(r"^local (\w+)(?:, (\w+))? = ")
# The constants each side may index with: its own names, and the sizes of the players' blocks.
ALLOWED = {
    "KEYS": ("K_", "PK_", "GK_", "KEYS_BEFORE_PLAYERS", "PLAYER_KEYS"),
    "ARGV": ("A_", "PA_", "ARGS_BEFORE_PLAYERS", "PLAYER_ARGS"),
}


def body_of(script: Script) -> str:
    """The script's source after its prelude (the part written by hand), without its comments."""
    prelude = TABLE.prelude()
    assert script.source.count(prelude) == 1, f"{script.name}: the table's prelude, once"
    before, body = script.source.split(prelude)
    assert not INDEX.search(before), f"{script.name}: no KEYS or ARGV before the names are defined"
    return re.sub(r"--[^\n]*", "", body)


def defined(prelude: str) -> dict[str, str]:
    """The prelude's constants: name -> the Lua expression it is set to."""
    names: dict[str, str] = {}
    for line in prelude.splitlines():
        if line.startswith("local "):
            left, _, right = line.removeprefix("local ").partition(" = ")
            for name, value in zip(left.split(", "), right.split(", "), strict=True):
                names[name] = value
    return names


@pytest.mark.parametrize("script", [SAVE, SAVE_COUNTING], ids=["save", "save_counting"])
def test_the_save_script_indexes_keys_and_arguments_only_by_the_tables_names(script: Script) -> None:
    names = defined(TABLE.prelude())
    body = body_of(script)
    assert "#KEYS" not in body and "#ARGV" not in body, "positions counted from the end are the table's"
    for side, index in INDEX.findall(body):
        assert not re.search(r"\d", index), f"{side}[{index}]: a number, not a name"
        for word in re.findall(r"[A-Z][A-Z_]+", index):
            assert word in names, f"{side}[{index}]: {word} is not in the table"
            assert word.startswith(ALLOWED[side]), f"{side}[{index}]: {word} names the other side"


def test_every_name_in_the_table_is_read_by_the_save_script() -> None:
    body = body_of(SAVE)
    unread = [name for name in defined(TABLE.prelude()) if not re.search(rf"\b{name}\b", body)]
    assert unread == []


def test_the_prelude_numbers_each_name_by_its_place_in_the_table() -> None:
    names = defined(TABLE.prelude())
    expected = {f"K_{n.upper()}": str(i) for i, n in enumerate(TABLE.keys, 1)}
    expected |= {f"A_{n.upper()}": str(i) for i, n in enumerate(TABLE.args, 1)}
    expected |= {f"PK_{n.upper()}": str(i) for i, n in enumerate(TABLE.player_keys, 1)}
    expected |= {f"PA_{n.upper()}": str(i) for i, n in enumerate(TABLE.player_args, 1)}
    expected |= {f"GK_{n.upper()}": str(i) for i, n in enumerate(TABLE.global_keys, 1)}
    expected |= {"A_RUNNING": "#ARGV"}  # the one trailing argument: always the last
    expected |= {
        "KEYS_BEFORE_PLAYERS": "12",
        "PLAYER_KEYS": "3",
        "ARGS_BEFORE_PLAYERS": "17",
        "PLAYER_ARGS": "10",
    }
    assert names == expected


def test_a_call_missing_a_name_or_giving_an_unknown_one_is_refused_before_redis() -> None:
    table = ArgumentTable(keys=("version", "state"), args=("ttl",))
    assert table.keys_for({"state": "s", "version": "v"}) == ["v", "s"]
    with pytest.raises(ValueError, match="missing"):
        table.keys_for({"version": "v"})
    with pytest.raises(ValueError, match="unknown"):
        table.args_for({"ttl": 1, "tll": 2})


class RecordsScripts:
    """A redis.asyncio client that keeps the KEYS and ARGV of every script it runs."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.client = client
        self.calls: dict[str, tuple[list[str], list[Any]]] = {}

    async def evalsha(self, sha: str, numkeys: int, *rest: Any) -> Any:
        self.calls[sha] = (list(rest[:numkeys]), list(rest[numkeys:]))
        return await self.client.evalsha(sha, numkeys, *rest)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


def finished_game() -> GameOutcome:
    ann = PlayerOutcome("1", "Ann", first_out=True, points=1, rating=(27.5, 7.0))
    bob = PlayerOutcome("2", "Bob", durak=True, ai_finished=True)
    return GameOutcome("g1", json.dumps({"game": "g1"}), [ann, bob], season=2)


def probe(table: ArgumentTable, players: int, *, global_keys: bool) -> str:
    """A script with the table's prelude that returns what it reads under each name, in the table's order."""
    reads = [f"KEYS[K_{n.upper()}]" for n in table.keys]
    reads += [f"ARGV[A_{n.upper()}]" for n in (*table.args, *table.trailing_args)]
    for i in range(players):
        reads += [
            f"KEYS[KEYS_BEFORE_PLAYERS + {i} * PLAYER_KEYS + PK_{n.upper()}]" for n in table.player_keys
        ]
        reads += [
            f"ARGV[ARGS_BEFORE_PLAYERS + {i} * PLAYER_ARGS + PA_{n.upper()}]" for n in table.player_args
        ]
    if global_keys:
        after = f"KEYS_BEFORE_PLAYERS + {players} * PLAYER_KEYS"
        reads += [f"KEYS[{after} + GK_{n.upper()}]" for n in table.global_keys]
    return table.prelude() + "return {" + ", ".join(reads) + "}"


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_what_the_store_passes_under_each_name_is_what_the_script_reads_under_it(
    redis: aioredis.Redis, cluster: bool
) -> None:
    client = RecordsScripts(redis)
    store = RedisGameStore(client, counting_versions=True)  # type: ignore[arg-type]
    store.cluster = cluster  # the call's shape on a cluster: no global keys (they follow in a second step)
    await store.save(CHAT, 0, "lobby", ttl=60)
    request = SaveRequest(
        1, "over", ttl=3600, deadline=99.5, outcome=finished_game(), last_durak="2", request_id="r1",
        running=True,
    )  # fmt: skip
    assert await store.save_or_current(CHAT, request) == 2
    keys, args = client.calls[SAVE_COUNTING.sha]
    assert len(keys) == TABLE.key_count(2, global_keys=not cluster) and len(args) == TABLE.arg_count(2)

    read = [
        str(value)
        for value in await redis.eval(probe(TABLE, 2, global_keys=not cluster), len(keys), *keys, *args)
    ]
    season = [k.leaderboard_key(CHAT, board, 2) for board in ("durak", "games", "points", "rank")]
    expected = [
        k.version_key(CHAT), k.state_key(CHAT), k.messages_key(CHAT), k.meta_key(CHAT), *season,
        k.outcome_marker_key(CHAT, "g1"), k.request_key(CHAT, "r1"), k.leaderboard_key(CHAT, "rating", 2),
        k.ratings_key(CHAT),
        "1", "over", "1", "3600", "99.5", "tg:-100123", "set", "2", "0" if cluster else "1", '{"game": "g1"}',
        str(ARCHIVE_TTL), "2", "r1", "0", str(REQUEST_TTL), "2", str(k.TREND_LENGTH),
        "running",  # checked below: the time the game would expire untouched
        k.player_key(CHAT, "1", 2), k.trend_key(CHAT, "1", 2), k.versus_key(CHAT, "1", 2),
        "1", "Ann", "0", "1", "0", "1", "27.5", "7.0", "6.50", "0",
        k.player_key(CHAT, "2", 2), k.trend_key(CHAT, "2", 2), k.versus_key(CHAT, "2", 2),
        "2", "Bob", "1", "0", "0", "0", "", "", "", "1",
    ]  # fmt: skip
    if not cluster:
        expected += [k.timers_key("tg"), k.archive_key("g1"), k.running_key("tg")]
    running = len(TABLE.keys) + len(TABLE.args)
    assert abs(float(read[running]) - (time.time() + 3600)) < 60
    assert read[:running] + ["running"] + read[running + 1 :] == expected
