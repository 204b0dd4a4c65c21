"""A process that owns an AI pool, for the test that SIGKILLs it: it prints its workers' pids and waits.
Run: ``python -m tests.bot.ai_pool_owner``."""

from __future__ import annotations

import asyncio

from bot.runtime.ai_pool import AiPool


async def own_a_pool() -> None:
    pool = AiPool(workers=2)
    await pool.warm_up()
    print(" ".join(str(pid) for pid in sorted(pool.worker_pids)), flush=True)
    await asyncio.sleep(600)  # until the test kills this process


if __name__ == "__main__":
    asyncio.run(own_a_pool())
