"""``python -m adapters.discord sync [--guild ID]``: upload the ``/durak`` commands once, then exit.

Run it at deploy time (or set ``DISCORD_SYNC=1`` for one start). It logs in over REST only: no gateway
connection, no game service, no Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import discord
from discord import app_commands

from adapters.discord.commands import install


async def sync(token: str, guild_id: int | None) -> int:
    client = discord.Client(intents=discord.Intents.none())
    tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(client)
    await install(tree)
    async with client:
        await client.login(token)
        if guild_id is None:
            synced = await tree.sync()
        else:
            guild = discord.Object(id=guild_id)
            tree.copy_global_to(guild=guild)
            synced = await tree.sync(guild=guild)
    where = f"guild {guild_id} (at once)" if guild_id else "every guild (may take up to an hour to show)"
    print(f"Synced /{', /'.join(c.name for c in synced)} to {where}.")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m adapters.discord")
    commands = parser.add_subparsers(dest="command", required=True)
    sync_parser = commands.add_parser("sync", help="upload the /durak slash commands to Discord")
    sync_parser.add_argument("--guild", type=int, help="only to this guild (appears at once; for testing)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from bot.adapter import BotConfig

    token = BotConfig().discord_token
    if not token:
        print("Set DISCORD_TOKEN (environment or .env) first.", file=sys.stderr)
        return 2
    return asyncio.run(sync(token, args.guild))


if __name__ == "__main__":
    sys.exit(main())
