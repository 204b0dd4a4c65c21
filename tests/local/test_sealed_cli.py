"""The sealed deal from the command line (docs/fairness.md): `durak-bot verify` refuses each broken record of
tests/bot/tampered_deals.py for the check it breaks, in one line, as the replay page does; `durak-bot demo`
shows no seal, and `durak-bot play --seed N` one whose salt is not made from N."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from core.cards import CARDS
from core.commitment import CHECKS, commitment, short
from core.deal import shuffled_deck
from storage.embedded import RedisServer
from storage.keys import archive_key
from tests.bot.tampered_deals import deal_records
from tests.local.cli import Conversation, clean_env, run_cli
from tests.local.test_play_cli import PROMPT, wait_for


async def test_verify_refuses_each_broken_record_in_one_line_naming_the_check(
    tmp_path: Path, redis_server: RedisServer, real_redis: Any
) -> None:
    records = deal_records()
    for number, tampered in enumerate(records):
        await real_redis.set(archive_key(f"g{number}"), tampered.record)
    env = clean_env(tmp_path / "data", REDIS_URL=redis_server.url)
    for number, tampered in enumerate(records):
        verified = await asyncio.to_thread(run_cli, ["verify", f"g{number}"], tmp_path, env)
        lines = verified.stdout.splitlines()
        assert "Traceback" not in verified.stderr, verified.stderr
        assert [line.split()[0] for line in lines if line.split()[:1] and line.split()[0] in CHECKS] == list(
            CHECKS
        ), verified.stdout  # every check, by name, in order
        if tampered.refused_by is None:
            assert verified.returncode == 0, (tampered.name, verified.stdout)
            assert lines[-1].startswith("The deal checks out"), tampered.name
            continue
        assert verified.returncode == 1, (tampered.name, verified.stdout)
        assert lines[-1].startswith(f"The deal does NOT check out: {tampered.refused_by}"), (
            tampered.name,
            lines[-1],
        )
        if tampered.step is not None:
            assert f"step {tampered.step}" in lines[-1], (tampered.name, lines[-1])


def test_a_demo_shows_no_seal(tmp_path: Path) -> None:
    """A demo prints the same game for the same seed, so any seal it showed would be opened by the seed alone."""
    result = run_cli(["demo", "--seed", "1"], tmp_path, clean_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr
    assert "Deal sealed" not in result.stdout and "Salt " not in result.stdout


def test_a_game_played_with_a_seed_shows_a_seal_not_made_from_the_seed(tmp_path: Path) -> None:
    """The same seed deals the same deck; its seal differs every game, and is not the one a salt made from the
    seed would give."""
    seals = [
        first_seal(["play", "--players", "2", "--seed", "5", "--name", "Tess"], tmp_path / f"run{n}")
        for n in (1, 2)
    ]
    order = [CARDS[card_id] for card_id in shuffled_deck(36, 5)]
    assert seals[0] != seals[1]
    assert short(commitment(order, f"{5:016x}" * 2)) not in seals


def first_seal(args: list[str], folder: Path) -> str:
    """The seal the table shows at the start of a terminal game; the game is then left with q."""
    folder.mkdir()
    conversation = Conversation(args, folder, clean_env(folder / "data"))
    deadline = time.monotonic() + 30
    try:
        wait_for(conversation, PROMPT, deadline=deadline)
        shown = next(line for line in conversation.transcript if "Deal sealed: " in line)
        conversation.send("q")
        status, errors = conversation.finish()
        assert status == 0, errors
    finally:
        conversation.kill()
    found = re.search(r"Deal sealed: ([0-9a-f ]{19})", shown)
    assert found is not None, shown
    return found.group(1)
