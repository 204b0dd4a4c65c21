"""A Lua script's KEYS and ARGV by name: one table that the script's prelude (its indexes as named locals)
and the store's call (its lists, built by name) both come from, so neither counts positions
(`storage.scripts.SAVE_ARGUMENTS`, tests/storage/test_scripts_contract.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class ArgumentTable:
    """The names of a script's KEYS and ARGV, in the order the script takes them: the one table both sides
    read. The Lua reads its indexes from `prelude` (named locals, never numbers) and the store builds its
    lists by name (`keys_for`, `args_for`), so neither can count differently from the other;
    tests/storage/test_scripts_contract.py holds the script's source to it.

    A call's KEYS are `keys`, then `player_keys` once per player, then `global_keys` when it is given them
    (a single Redis; a cluster does that part in a second step); its ARGV are `args`, then `player_args`
    once per player, then `trailing_args`, which the Lua counts from the end (`#ARGV`)."""

    keys: tuple[str, ...]
    args: tuple[str, ...]
    player_keys: tuple[str, ...] = ()
    player_args: tuple[str, ...] = ()
    global_keys: tuple[str, ...] = ()
    trailing_args: tuple[str, ...] = ()

    def prelude(self) -> str:
        """Lua locals naming every index: `K_<key>` and `A_<arg>` are KEYS and ARGV indexes; player i's
        are `KEYS_BEFORE_PLAYERS + (i - 1) * PLAYER_KEYS + PK_<key>` and `ARGS_BEFORE_PLAYERS + (i - 1) *
        PLAYER_ARGS + PA_<arg>`; a global key is `KEYS_BEFORE_PLAYERS + n * PLAYER_KEYS + GK_<key>` for n
        players; a trailing argument is `A_<arg>` too (from `#ARGV`)."""
        lines = ["-- KEYS and ARGV indexes by name, from the script's `ArgumentTable` (storage/scripts.py)"]
        lines += numbered("K_", self.keys)
        lines += numbered("A_", self.args)
        if self.player_keys or self.player_args:
            lines.append(
                f"local KEYS_BEFORE_PLAYERS, PLAYER_KEYS = {len(self.keys)}, {len(self.player_keys)}"
            )
            lines.append(
                f"local ARGS_BEFORE_PLAYERS, PLAYER_ARGS = {len(self.args)}, {len(self.player_args)}"
            )
        lines += numbered("PK_", self.player_keys)
        lines += numbered("PA_", self.player_args)
        lines += numbered("GK_", self.global_keys)
        last = len(self.trailing_args) - 1
        lines += [
            f"local A_{name.upper()} = #ARGV" + (f" - {last - i}" if i < last else "")
            for i, name in enumerate(self.trailing_args)
        ]
        return "\n".join(lines) + "\n"

    def keys_for(
        self,
        keys: Mapping[str, str],
        players: Sequence[Mapping[str, str]] = (),
        global_keys: Mapping[str, str] | None = None,
    ) -> list[str]:
        """The call's KEYS, each given by its name; `global_keys` None leaves them out (a cluster)."""
        ordered = in_order(self.keys, keys)
        for player in players:
            ordered += in_order(self.player_keys, player)
        if global_keys is not None:
            ordered += in_order(self.global_keys, global_keys)
        return ordered

    def args_for(
        self,
        args: Mapping[str, Any],
        players: Sequence[Mapping[str, Any]] = (),
        trailing: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        """The call's ARGV, each given by its name."""
        ordered = in_order(self.args, args)
        for player in players:
            ordered += in_order(self.player_args, player)
        return ordered + in_order(self.trailing_args, trailing or {})

    def key_count(self, players: int, *, global_keys: bool) -> int:
        return (
            len(self.keys) + players * len(self.player_keys) + (len(self.global_keys) if global_keys else 0)
        )

    def arg_count(self, players: int) -> int:
        return len(self.args) + players * len(self.player_args) + len(self.trailing_args)


def numbered(prefix: str, names: tuple[str, ...]) -> list[str]:
    """`local <PREFIX><NAME> = <its place from 1>` for each name: a Lua index, or an offset in a block."""
    return [f"local {prefix}{name.upper()} = {place}" for place, name in enumerate(names, 1)]


def in_order(names: tuple[str, ...], given: Mapping[str, T]) -> list[T]:
    """The values of `names`, in their order; a name missing or one the table does not know is a bug in the
    caller, refused before anything reaches Redis."""
    if given.keys() != set(names):
        missing, unknown = set(names) - given.keys(), given.keys() - set(names)
        raise ValueError(f"script arguments: missing {sorted(missing)}, unknown {sorted(unknown)}")
    return [given[name] for name in names]
