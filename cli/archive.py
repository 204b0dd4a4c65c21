"""`durak-bot replay` and `durak-bot verify`: a finished game read back from its archive record."""

from __future__ import annotations

import argparse
import os
import sys

from bot.runtime.config import BotConfig
from cli.stores import local_data_dir, open_store_or_explain
from core.commitment import CHECKED, CHECKS, Verdict

# ---- replay -------------------------------------------------------------------------------------------


async def archived_record(config: BotConfig, game_id: str) -> str | None:
    """A finished game's archive record, from the configured Redis or the terminal's own data; None (with
    the reason printed) when there is none or Redis does not answer."""
    from storage.errors import StoreUnavailable

    places = [(config.redis_url, config.data_dir), (None, local_data_dir(config))]
    for redis_url, data_dir in places:
        if redis_url is None and not data_dir.exists():
            continue
        opened = await open_store_or_explain(redis_url, data_dir)
        if opened is None:
            return None
        store, close = opened
        try:
            archived = await store.archived_game(game_id)
        except StoreUnavailable as error:
            print(f"Redis is not answering: {error}", file=sys.stderr)
            return None
        finally:
            await close()
        if archived:
            return archived
    print(f"No archived game {game_id!r} (games are kept 30 days after they end).", file=sys.stderr)
    return None


async def replay(config: BotConfig, args: argparse.Namespace) -> int:
    from adapters.local.replay import print_replay
    from bot.game.archive import ArchiveError

    archived = await archived_record(config, args.game_id)
    if archived is None:
        return 1
    try:
        print_replay(archived, sys.stdout, args.lang)
        if args.analyse:
            from adapters.local.replay import analyse_here, print_analysis

            workers = args.workers or os.cpu_count() or 1
            analysis = await analyse_here(args.game_id, archived, workers, sys.stderr)
            print_analysis(archived, analysis, sys.stdout, args.lang)
    except ArchiveError as error:
        print(str(error), file=sys.stderr)
        return 1
    return 0


# ---- verify -------------------------------------------------------------------------------------------


async def verify(config: BotConfig, args: argparse.Namespace) -> int:
    """Check a finished game's deal offline: each check of `core.commitment.CHECKS` (the ones the replay page
    makes) in turn, printed by name; the last line says whether the deal checks out, or the first check that
    fails, where and why (docs/fairness.md)."""
    from bot.game.archive import ArchiveError, revealed_deal

    archived = await archived_record(config, args.game_id)
    if archived is None:
        return 1
    try:
        deal = revealed_deal(archived)
    except ArchiveError as error:
        print(str(error), file=sys.stderr)
        return 1
    if deal is None:
        print(f"Game {args.game_id} started before deals were sealed: there is nothing to check.")
        return 1
    verdict = deal.verdict()
    print(f"seal (at the start): {deal.commitment}")
    print(f"salt:  {deal.salt}")
    print(f"order: {deal.order}")
    print(f"recorded moves: {len(deal.played.log)}")
    for name, outcome in check_outcomes(verdict):
        print(f"{name:<7}{outcome:<12}{CHECKED[name]}")
    if verdict.ok:
        print(
            "The deal checks out: every card dealt and drawn came from the sealed deck, to the result announced."
        )
        return 0
    print(f"The deal does NOT check out: {verdict}.")
    return 1


def check_outcomes(verdict: Verdict) -> list[tuple[str, str]]:
    """Each check's name and what became of it: "ok" up to the one that failed, then "not made"."""
    if verdict.ok:
        return [(name, "ok") for name in CHECKS]
    failed_at = CHECKS.index(verdict.check)
    return [
        (name, "ok" if n < failed_at else "FAILED" if n == failed_at else "not made")
        for n, name in enumerate(CHECKS)
    ]
