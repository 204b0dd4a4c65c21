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


# A Lua function the scripts that return a chat's record share: with a lobby stored, the ratings ("mu sigma")
# of its seated people from the current season's ratings hash, flat {user, rating, ...} (those without one
# are left out); nothing for any other state. Only a lobby's short header is decoded, never a game.
SEATED_RATINGS = """
local function seated_ratings(state, ratings)
  if not state then return {} end
  local head = string.match(state, '^[^\\n]*')
  if not string.find(head, '"kind":"lobby"', 1, true) then return {} end
  local ok, header = pcall(cjson.decode, head)
  if not ok or type(header) ~= 'table' or type(header.seats) ~= 'table' then return {} end
  local found = {}
  for _, seat in ipairs(header.seats) do
    local user = type(seat) == 'table' and seat.user_id
    if type(user) == 'string' then
      local rating = redis.call('HGET', ratings, user)
      if rating then
        found[#found + 1] = user
        found[#found + 1] = rating
      end
    end
  end
  return found
end
"""

# KEYS: version, state, messages, meta, ratings.
# Returns {version, state|false, messages flat, meta flat, seated ratings flat (see SEATED_RATINGS)}.
LOAD = Script(
    "load",
    SEATED_RATINGS
    + """
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
local state = redis.call('GET', KEYS[2])
return {version, state, redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4]), seated_ratings(state, KEYS[5])}
""",
)

# KEYS: 1 version, 2 state, 3 messages, 4 meta, 5 lb:durak, 6 lb:games, 7 lb:points, 8 lb:rank,
#       9 outcome marker, 10 request key (`keys.request_key`), 11 lb:rating, 12 ratings (the current
#       season's, `keys.ratings_key`), then per player three: hash, trend list, versus hash (13..12+3n);
#       then (global mode only) timers, archive, running. The boards and per-player keys are those of the
#       outcome's season.
# ARGV: 1 expected version, 2 state, 3 "1" to store the state / "0" to delete it, 4 ttl seconds,
#       5 deadline ("" for none), 6 chat string, 7 last_durak mode (keep|set|clear), 8 last_durak,
#       9 "1" if the global keys are passed, 10 archive json, 11 archive ttl, 12 n players (-1: no outcome),
#       13 request id ("" for none), 14 "1" if the state must still exist (the caller judged the move on its
#       own copy of it, see `RedisGameStore.save_or_current`), 15 request key ttl, 16 the outcome's season,
#       17 trend length, then per player: user id, name, durak, first_out, draw, points (0/1 flags), mu,
#       sigma, ordinal ("" when the game does not rate them); last of all (`#ARGV`, after the players), the
#       running-games index (`keys.running_key`, the last key in global mode): "" leave it, "0" the chat has
#       no game running, else the game runs and this is its expiry (the member's score).
# Returns {new version, armed timer version or -1 before this save}; on a conflict {0, -1} followed by what
# LOAD returns (version, state, messages, meta, seated ratings), so the caller can decide again without
# another round trip; {version, -2} when this request id made a save already (a retry whose first reply was
# lost). A request the caller gave up on (REQUEST_OUTCOME marked it "void") is a conflict, so it can never
# land late. New ratings are computed by the caller (from the ratings its game started with) and written
# here, in the block the outcome marker guards: a retried save never rates twice. The current season's
# ratings hash takes them only if the game's season is still the chat's current one.
SAVE = Script(
    "save",
    SEATED_RATINGS
    + """
local function conflict(current)
  local state = redis.call('GET', KEYS[2])
  return {0, -1, current, state, redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4]),
    seated_ratings(state, KEYS[12])}
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
  local timers = KEYS[13 + 3 * n]
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
  local current_season = tonumber(redis.call('HGET', KEYS[4], 'season') or '1') == tonumber(ARGV[16])
  local trend_length = tonumber(ARGV[17])
  for i = 1, n do
    local a = 17 + (i - 1) * 9
    local user, key = ARGV[a + 1], KEYS[10 + 3 * i]
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
    local streak = tonumber(redis.call('HGET', key, 'streak') or '0')
    if ARGV[a + 3] == '1' then streak = math.min(streak, 0) - 1 else streak = math.max(streak, 0) + 1 end
    redis.call('HSET', key, 'streak', streak)
    if ARGV[a + 7] ~= '' then
      redis.call('HSET', key, 'mu', ARGV[a + 7], 'sigma', ARGV[a + 8])
      redis.call('HINCRBY', key, 'rated', 1)
      redis.call('ZADD', KEYS[11], ARGV[a + 9], user)
      redis.call('RPUSH', KEYS[11 + 3 * i], ARGV[a + 9])
      redis.call('LTRIM', KEYS[11 + 3 * i], -trend_length, -1)
      if current_season then redis.call('HSET', KEYS[12], user, ARGV[a + 7] .. ' ' .. ARGV[a + 8]) end
    end
    for j = 1, n do  -- head to head: who was the durak while the other was not
      local b = 17 + (j - 1) * 9
      if j ~= i and ARGV[a + 3] ~= ARGV[b + 3] then
        local side = ARGV[b + 3] == '1' and 'w:' or 'l:'
        redis.call('HINCRBY', KEYS[12 + 3 * i], side .. ARGV[b + 1], 1)
      end
    end
  end
  if global then redis.call('SET', KEYS[14 + 3 * n], ARGV[10], 'EX', ARGV[11]) end
end
redis.call('PUBLISH', 'durak:live:' .. ARGV[6], ARGV[6] .. '|' .. version)  -- keys.live_channel: open pages
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

# KEYS: version, state, messages, meta, quarantine key, ratings.  ARGV: expected version, quarantine ttl.
# Moves a state the service cannot decode aside and bumps the version (buttons drawn for it go stale), if the
# chat is still at the version whose state was read; otherwise {0} followed by what LOAD returns.
QUARANTINE = Script(
    "quarantine",
    SEATED_RATINGS
    + """
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then
  local state = redis.call('GET', KEYS[2])
  return {0, current, state, redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4]),
    seated_ratings(state, KEYS[6])}
end
local state = redis.call('GET', KEYS[2])
if state then redis.call('SET', KEYS[5], state, 'EX', ARGV[2]) end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[1], current + 1)
return {current + 1}
""",
)

# KEYS: meta, ratings.  Starts the chat's next season and returns its number: the current season's ratings
# are forgotten (each season's totals and ratings stay under its own keys, see `keys.season_key`).
NEW_SEASON = Script(
    "new_season",
    """
local season = tonumber(redis.call('HGET', KEYS[1], 'season') or '1') + 1
redis.call('HSET', KEYS[1], 'season', season)
redis.call('DEL', KEYS[2])
return season
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
