"""The Lua scripts: each runs atomically inside Redis, so one script call is one round trip and one step.

Every script declares all the keys it touches (Redis Cluster routes a script by its keys, and they must share
one slot). SAVE touches the global timer index and archive only when the store runs on a single Redis; on a
cluster those two follow as a second step (see `RedisGameStore.save`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Script:
    name: str
    source: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())


# KEYS: version, state, messages, meta.  Returns {version, state|false, messages flat, meta flat}.
LOAD = Script(
    "load",
    """
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
return {version, redis.call('GET', KEYS[2]), redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4])}
""",
)

# KEYS: 1 version, 2 state, 3 messages, 4 meta, 5 lb:durak, 6 lb:games, 7 lb:points, 8 lb:rank,
#       9 outcome marker, 10 request key (`keys.request_key`), 11..10+n player hashes, then (global mode
#       only) timers, archive.
# ARGV: 1 expected version, 2 state, 3 "1" to store the state / "0" to delete it, 4 ttl seconds,
#       5 deadline ("" for none), 6 chat string, 7 last_durak mode (keep|set|clear), 8 last_durak,
#       9 "1" if the global keys are passed, 10 archive json, 11 archive ttl, 12 n players (-1: no outcome),
#       13 request id ("" for none), 14 "1" if the state must still exist (the caller judged the move on its
#       own copy of it, see `RedisGameStore.save_or_current`), 15 request key ttl, then per player: user id,
#       name, durak, first_out, draw, points (0/1 flags); last of all (`#ARGV`, after the players), the
#       running-games index (`keys.running_key`, the last key in global mode): "" leave it, "0" the chat has
#       no game running, else the game runs and this is its expiry (the member's score).
# Returns {new version, armed timer version or -1 before this save}; on a conflict {0, -1} followed by what
# LOAD returns (version, state, messages, meta), so the caller can decide again without another round trip;
# {version, -2} when this request id made a save already (a retry whose first reply was lost). A request the
# caller gave up on (REQUEST_OUTCOME marked it "void") is a conflict, so it can never land late.
SAVE = Script(
    "save",
    """
local function conflict(current)
  return {0, -1, current, redis.call('GET', KEYS[2]), redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4])}
end
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[13] ~= '' then
  local made = redis.call('GET', KEYS[10])
  if made == 'void' then return conflict(current) end
  if made then return {tonumber(made), -2} end
end
if current ~= tonumber(ARGV[1]) or (ARGV[14] == '1' and redis.call('EXISTS', KEYS[2]) == 0) then
  return conflict(current)
end
local version = current + 1
local ttl = tonumber(ARGV[4])
redis.call('SET', KEYS[1], version)
if ARGV[3] == '1' then
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ttl)
else
  redis.call('DEL', KEYS[2])
end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('EXPIRE', KEYS[3], ttl) end
if ARGV[13] ~= '' then redis.call('SET', KEYS[10], version, 'EX', ARGV[15]) end
if ARGV[7] == 'set' then
  redis.call('HSET', KEYS[4], 'last_durak', ARGV[8])
elseif ARGV[7] == 'clear' then
  redis.call('HDEL', KEYS[4], 'last_durak')
end

local n = math.max(tonumber(ARGV[12]), 0)
local has_outcome = tonumber(ARGV[12]) >= 0
local global = ARGV[9] == '1'
local old_timer = tonumber(redis.call('HGET', KEYS[4], 'timer') or '-1')
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[4], 'timer', version)
elseif old_timer >= 0 then
  redis.call('HDEL', KEYS[4], 'timer')
end
if global then
  local timers = KEYS[11 + n]
  if old_timer >= 0 then redis.call('ZREM', timers, ARGV[6] .. '|' .. old_timer) end
  if ARGV[5] ~= '' then redis.call('ZADD', timers, ARGV[5], ARGV[6] .. '|' .. version) end
end
local running = ARGV[#ARGV]  -- always the last argument: "" leaves the index of running games alone
if global and running ~= '' then
  if running == '0' then
    redis.call('ZREM', KEYS[#KEYS], ARGV[6])
  else
    redis.call('ZADD', KEYS[#KEYS], running, ARGV[6])
  end
end

if has_outcome and redis.call('SET', KEYS[9], version, 'NX', 'EX', ARGV[11]) then
  for i = 1, n do
    local a = 15 + (i - 1) * 6
    local user, key = ARGV[a + 1], KEYS[10 + i]
    redis.call('HSET', key, 'name', ARGV[a + 2])
    local games = redis.call('HINCRBY', key, 'games', 1)
    local durak = redis.call('HINCRBY', key, 'durak', ARGV[a + 3])
    local first_out = redis.call('HINCRBY', key, 'first_out', ARGV[a + 4])
    redis.call('HINCRBY', key, 'draws', ARGV[a + 5])
    local points = redis.call('HINCRBY', key, 'points', ARGV[a + 6])
    redis.call('ZADD', KEYS[5], durak, user)
    redis.call('ZADD', KEYS[6], games, user)
    redis.call('ZADD', KEYS[7], points, user)
    local old_rank = redis.call('HGET', key, 'rank')
    if old_rank then redis.call('ZREM', KEYS[8], old_rank) end
    local score = math.max(points, 0)
    local rank = string.format('%010d:%010d:%010d:%012d:%s', durak, games, first_out, score, user)
    redis.call('ZADD', KEYS[8], 0, rank)
    redis.call('HSET', key, 'rank', rank)
  end
  if global then redis.call('SET', KEYS[12 + n], ARGV[10], 'EX', ARGV[11]) end
end
return {version, old_timer}
""",
)

# KEYS: request key.  ARGV: ttl.  Returns the version the request's save made, or false, and then marks the
# request "void" so that save, should it still reach Redis, is refused: the answer is final either way.
REQUEST_OUTCOME = Script(
    "request_outcome",
    """
local made = redis.call('GET', KEYS[1])
if made and made ~= 'void' then return tonumber(made) end
redis.call('SET', KEYS[1], 'void', 'EX', ARGV[1])
return false
""",
)

# KEYS: version, state, messages, meta, quarantine key.  ARGV: expected version, quarantine ttl.
# Moves a state the service cannot decode aside and bumps the version (buttons drawn for it go stale), if the
# chat is still at the version whose state was read; otherwise {0} followed by what LOAD returns.
QUARANTINE = Script(
    "quarantine",
    """
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then
  return {0, current, redis.call('GET', KEYS[2]), redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4])}
end
local state = redis.call('GET', KEYS[2])
if state then redis.call('SET', KEYS[5], state, 'EX', ARGV[2]) end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[1], current + 1)
return {current + 1}
""",
)

# KEYS: meta.  ARGV: the words read, the words to store ("" clears them).  Returns 1, or 0 (and changes
# nothing) when the words are no longer the ones read.
REPLACE_WORDS = Script(
    "replace_words",
    """
if (redis.call('HGET', KEYS[1], 'words') or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'words') else redis.call('HSET', KEYS[1], 'words', ARGV[2]) end
return 1
""",
)

# KEYS: messages, state.  ARGV: triples of field, value, "1" to set / "0" to delete.
# The hash takes the state's remaining TTL (or a day when there is no state), so it never outlives its game
# for long.
SET_MESSAGES = Script(
    "set_messages",
    """
for i = 1, #ARGV, 3 do
  if ARGV[i + 2] == '1' then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  else
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  redis.call('EXPIRE', KEYS[1], 86400)
end
return 1
""",
)

# KEYS: timers.  ARGV: now, limit, lease seconds (0: none), then members done with (removed first).
# Without a lease it pops the due members. With one it moves them to now + lease instead, so no two callers
# get the same one within the lease, and a deadline whose claimer died before handling it fires again after
# the lease (from any process); the claimer passes it back as done with its next claim.
CLAIM_TIMERS = Script(
    "claim_timers",
    """
if #ARGV > 3 then redis.call('ZREM', KEYS[1], unpack(ARGV, 4)) end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then
  local lease = tonumber(ARGV[3] or '0')
  if lease > 0 then
    local again = tonumber(ARGV[1]) + lease
    for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', again, member) end
  else
    redis.call('ZREM', KEYS[1], unpack(due))
  end
end
return due
""",
)
