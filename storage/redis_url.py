"""REDIS_URL as the operator wrote it: checked once, in words an operator can act on, and passed to redis-py
unchanged but for our own ``cluster`` option.

Rebuilding a URL from its parts is not neutral: ``urlunsplit`` turns ``unix:///run/redis.sock`` into
``unix:/run/redis.sock``, which redis-py 8.2 and later refuse. So the URL is only ever cut, never rebuilt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from redis.asyncio.connection import parse_url

SCHEMES = ("redis://", "rediss://", "unix://")
OUR_OPTION = "cluster"  # `?cluster=yes`: talk to a Redis Cluster; redis-py never sees it
YES, NO = {"1", "yes", "true", "on"}, {"0", "no", "false", "off", ""}


class InvalidRedisUrl(ValueError):
    """REDIS_URL cannot work as written; the message is one line that names the problem and hides any
    password."""


@dataclass(frozen=True)
class RedisUrl:
    url: str  # what redis-py is given: the URL as written, without `cluster=`
    cluster: bool


def printable_url(url: str) -> str:
    """The URL with its password masked: ``redis://user:***@host:6379/0``, fit for a log line."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    user, colon, _ = userinfo.partition(":")
    return f"{scheme}{sep}{user}:***@{host}" if sep and at and colon else url


def parse_redis_url(url: str) -> RedisUrl:
    """The URL to hand redis-py and whether it names a cluster; InvalidRedisUrl when it cannot work."""

    def refuse(problem: str) -> InvalidRedisUrl:
        return InvalidRedisUrl(f"REDIS_URL {printable_url(url)!r}: {problem}")

    if any(char.isspace() or ord(char) < 32 for char in url):
        raise refuse("it holds spaces or control characters (percent-encode them, e.g. %20)")
    if not url.lower().startswith(SCHEMES):
        raise refuse("it must start with redis://, rediss:// or unix:// (e.g. redis://localhost:6379/0)")
    passed_on, cluster = without_our_option(url, refuse)
    parts = urlsplit(passed_on)
    if parts.scheme.lower() == "unix":
        if parts.hostname or not parts.path.startswith("/"):
            raise refuse("a unix:// URL needs the socket's path after it, e.g. unix:///run/redis/redis.sock")
    else:
        try:
            parts.port  # noqa: B018 - urlsplit checks the port only when asked for it
        except ValueError:
            raise refuse("the port must be a number from 1 to 65535") from None
        database = parts.path.strip("/")
        if database and not database.isdigit():
            raise refuse(f"the path must be a database number (/0, /1...), not /{database}")
    try:
        parse_url(passed_on)  # the query options, by the installed redis-py's own rules
    except ValueError as error:
        raise refuse(str(error).rstrip(".")) from None
    return RedisUrl(passed_on, cluster)


def without_our_option(url: str, refuse: Callable[[str], InvalidRedisUrl]) -> tuple[str, bool]:
    """The URL with every ``cluster=`` pair cut out of its query, and whether one said yes."""
    base, question, rest = url.partition("?")
    query, hash_mark, fragment = rest.partition("#")
    kept, cluster = [], False
    for pair in query.split("&") if question else []:
        name, _, value = pair.partition("=")
        if name != OUR_OPTION:
            kept.append(pair)
        elif value.lower() in YES:
            cluster = True
        elif value.lower() not in NO:
            raise refuse(f"cluster= takes yes or no, not {value!r}")
    cut = base + ("?" + "&".join(kept) if any(kept) else "") + hash_mark + fragment
    return cut, cluster
