"""The Lua scripts: each runs atomically inside Redis, so one script call is one round trip and one step.

Every script declares all the keys it touches (Redis Cluster routes a script by its keys, and they must share
one slot). SAVE touches the global timer index and archive only when the store runs on a single Redis; on a
cluster those two follow as a second step (see `RedisGameStore.save`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from storage.arguments import ArgumentTable


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

# A chat's next version: one more than the current one, and at least the Redis server's clock in milliseconds.
# So versions only grow, even across data Redis lost: a rollback (a host crash losing the last second of an
# AOF written `everysec`), a wipe, a failover to a stale replica. Every version given after such a loss is
# higher than every version of the lost timeline, so no screen drawn from it can pass for newer (adapters
# compare versions) and no mark of it for current (docs/reliability.md, "When Redis loses data").
NEXT_VERSION = """
local function next_version(current)
  local now = redis.call('TIME')
  return math.max(current + 1, tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
end
"""
# Versions that count by one from 1, for tests of the store's other rules that name versions (the
# `RedisGameStore(counting_versions=True)` of tests/conftest.py's `store`): never for a bot.
COUNTING_VERSION = """
local function next_version(current)
  return current + 1
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

# The SAVE script's KEYS and ARGV. The boards and per-player keys are those of the outcome's season.
SAVE_ARGUMENTS = ArgumentTable(
    keys=(
        "version",  # the chat's version counter
        "state",
        "messages",
        "meta",  # the chat hash: last_durak, season, the armed timer's version
        "lb_durak",
        "lb_games",
        "lb_points",
        "lb_rank",
        "outcome_marker",  # `keys.outcome_marker_key`: the outcome was counted
        "request",  # `keys.request_key`: the version this request's save made, or "void"
        "lb_rating",
        "ratings",  # the current season's (`keys.ratings_key`)
    ),
    args=(
        "expected_version",
        "state",
        "store_state",  # "1" to store the state, "0" to delete it
        "ttl",  # seconds
        "deadline",  # "" for none
        "chat",  # the chat as a string (`ChatRef.__str__`)
        "last_durak_mode",  # keep | set | clear
        "last_durak",
        "global",  # "1" when the global keys are passed (a single Redis)
        "archive",  # the archive's json
        "archive_ttl",
        "players",  # how many players the outcome has; -1: no outcome
        "request_id",  # "" for none
        "state_must_exist",  # "1": the caller decided on its own copy (see `RedisGameStore.save_or_current`)
        "request_ttl",
        "season",  # the outcome's
        "trend_length",
    ),
    player_keys=("hash", "trend", "versus"),  # `keys.player_key`, `keys.trend_key`, `keys.versus_key`
    player_args=(
        "user_id",
        "name",
        "durak",  # 0/1
        "first_out",  # 0/1
        "draw",  # 0/1
        "points",
        "mu",  # mu, sigma and ordinal: "" when the game does not rate them
        "sigma",
        "ordinal",
        "ai_finished",  # 1: the AI played their seat to its end (rules.md §9.6): counted, no head-to-head win
    ),
    global_keys=("timers", "archive", "running"),  # `keys.timers_key`, `keys.archive_key`, `keys.running_key`
    # The running-games index: "" leave it, "0" the chat has no game running, else the game runs and this is
    # its expiry (the member's score). Last, after the players: it came after them.
    trailing_args=("running",),
)

# Arguments: `SAVE_ARGUMENTS`, whose `prelude` names the indexes the body reads.
# Returns {new version, armed timer version or -1 before this save}; on a conflict {0, -1} followed by what
# LOAD returns (version, state, messages, meta, seated ratings), so the caller can decide again without
# another round trip; {version, -2} when this request id made a save already (a retry whose first reply was
# lost). A request the caller gave up on (REQUEST_OUTCOME marked it "void") is a conflict, so it can never
# land late. New ratings are computed by the caller (from the ratings its game started with) and written
# here, in the block the outcome marker guards: a retried save never rates twice. The current season's
# ratings hash takes them only if the game's season is still the chat's current one.
SAVE_BODY = """
local function conflict(current)
  local state = redis.call('GET', KEYS[K_STATE])
  return {0, -1, current, state, redis.call('HGETALL', KEYS[K_MESSAGES]), redis.call('HGETALL', KEYS[K_META]),
    seated_ratings(state, KEYS[K_RATINGS])}
end
local current = tonumber(redis.call('GET', KEYS[K_VERSION]) or '0')
if ARGV[A_REQUEST_ID] ~= '' then
  local made = redis.call('GET', KEYS[K_REQUEST])
  if made == 'void' then return conflict(current) end
  if made then return {tonumber(made), -2} end
end
if current ~= tonumber(ARGV[A_EXPECTED_VERSION])
  or (ARGV[A_STATE_MUST_EXIST] == '1' and redis.call('EXISTS', KEYS[K_STATE]) == 0) then
  return conflict(current)
end
local version = next_version(current)
local ttl = tonumber(ARGV[A_TTL])
redis.call('SET', KEYS[K_VERSION], version)
if ARGV[A_STORE_STATE] == '1' then
  redis.call('SET', KEYS[K_STATE], ARGV[A_STATE], 'EX', ttl)
else
  redis.call('DEL', KEYS[K_STATE])
end
if redis.call('EXISTS', KEYS[K_MESSAGES]) == 1 then redis.call('EXPIRE', KEYS[K_MESSAGES], ttl) end
if ARGV[A_REQUEST_ID] ~= '' then redis.call('SET', KEYS[K_REQUEST], version, 'EX', ARGV[A_REQUEST_TTL]) end
if ARGV[A_LAST_DURAK_MODE] == 'set' then
  redis.call('HSET', KEYS[K_META], 'last_durak', ARGV[A_LAST_DURAK])
elseif ARGV[A_LAST_DURAK_MODE] == 'clear' then
  redis.call('HDEL', KEYS[K_META], 'last_durak')
end

local n = math.max(tonumber(ARGV[A_PLAYERS]), 0)
local global_keys = KEYS_BEFORE_PLAYERS + n * PLAYER_KEYS  -- KEYS[global_keys + GK_...]: a single Redis only
-- a player (their arguments from a + 1) whose seat the AI finished for them and was not left the durak:
-- they neither beat anyone nor are beaten head to head (rules.md §9.6)
local function left_to_ai(a) return ARGV[a + PA_AI_FINISHED] == '1' and ARGV[a + PA_DURAK] == '0' end
local has_outcome = tonumber(ARGV[A_PLAYERS]) >= 0
local global = ARGV[A_GLOBAL] == '1'
local old_timer = tonumber(redis.call('HGET', KEYS[K_META], 'timer') or '-1')
if ARGV[A_DEADLINE] ~= '' then
  redis.call('HSET', KEYS[K_META], 'timer', version)
elseif old_timer >= 0 then
  redis.call('HDEL', KEYS[K_META], 'timer')
end
if global then
  local timers = KEYS[global_keys + GK_TIMERS]
  if old_timer >= 0 then redis.call('ZREM', timers, ARGV[A_CHAT] .. '|' .. old_timer) end
  if ARGV[A_DEADLINE] ~= '' then redis.call('ZADD', timers, ARGV[A_DEADLINE], ARGV[A_CHAT] .. '|' .. version) end
end
local running = ARGV[A_RUNNING]  -- "" leaves the index of running games alone
if global and running ~= '' then
  if running == '0' then
    redis.call('ZREM', KEYS[global_keys + GK_RUNNING], ARGV[A_CHAT])
  else
    redis.call('ZADD', KEYS[global_keys + GK_RUNNING], running, ARGV[A_CHAT])
  end
end

if has_outcome and redis.call('SET', KEYS[K_OUTCOME_MARKER], version, 'NX', 'EX', ARGV[A_ARCHIVE_TTL]) then
  local current_season = tonumber(redis.call('HGET', KEYS[K_META], 'season') or '1') == tonumber(ARGV[A_SEASON])
  local trend_length = tonumber(ARGV[A_TREND_LENGTH])
  for i = 1, n do
    local a = ARGS_BEFORE_PLAYERS + (i - 1) * PLAYER_ARGS
    local p = KEYS_BEFORE_PLAYERS + (i - 1) * PLAYER_KEYS
    local user, key = ARGV[a + PA_USER_ID], KEYS[p + PK_HASH]
    redis.call('HSET', key, 'name', ARGV[a + PA_NAME])
    local games = redis.call('HINCRBY', key, 'games', 1)
    local durak = redis.call('HINCRBY', key, 'durak', ARGV[a + PA_DURAK])
    local first_out = redis.call('HINCRBY', key, 'first_out', ARGV[a + PA_FIRST_OUT])
    redis.call('HINCRBY', key, 'draws', ARGV[a + PA_DRAW])
    local points = redis.call('HINCRBY', key, 'points', ARGV[a + PA_POINTS])
    local by_ai = ARGV[a + PA_AI_FINISHED] == '1'
    if by_ai then redis.call('HINCRBY', key, 'ai_finished', 1) end
    redis.call('ZADD', KEYS[K_LB_DURAK], durak, user)
    redis.call('ZADD', KEYS[K_LB_GAMES], games, user)
    redis.call('ZADD', KEYS[K_LB_POINTS], points, user)
    local old_rank = redis.call('HGET', key, 'rank')
    if old_rank then redis.call('ZREM', KEYS[K_LB_RANK], old_rank) end
    local score = math.max(points, 0)
    local rank = string.format('%010d:%010d:%010d:%012d:%s', durak, games, first_out, score, user)
    redis.call('ZADD', KEYS[K_LB_RANK], 0, rank)
    redis.call('HSET', key, 'rank', rank)
    local streak = tonumber(redis.call('HGET', key, 'streak') or '0')
    if ARGV[a + PA_DURAK] == '1' then
      streak = math.min(streak, 0) - 1
    elseif not by_ai then  -- a game the AI finished for them is no game "without being the durak"
      streak = math.max(streak, 0) + 1
    end
    redis.call('HSET', key, 'streak', streak)
    if ARGV[a + PA_MU] ~= '' then
      redis.call('HSET', key, 'mu', ARGV[a + PA_MU], 'sigma', ARGV[a + PA_SIGMA])
      redis.call('HINCRBY', key, 'rated', 1)
      redis.call('ZADD', KEYS[K_LB_RATING], ARGV[a + PA_ORDINAL], user)
      redis.call('RPUSH', KEYS[p + PK_TREND], ARGV[a + PA_ORDINAL])
      redis.call('LTRIM', KEYS[p + PK_TREND], -trend_length, -1)
      if current_season then
        redis.call('HSET', KEYS[K_RATINGS], user, ARGV[a + PA_MU] .. ' ' .. ARGV[a + PA_SIGMA])
      end
    end
    for j = 1, n do  -- head to head: who was the durak while the other was not
      local b = ARGS_BEFORE_PLAYERS + (j - 1) * PLAYER_ARGS
      if j ~= i and ARGV[a + PA_DURAK] ~= ARGV[b + PA_DURAK] and not left_to_ai(a) and not left_to_ai(b) then
        local side = ARGV[b + PA_DURAK] == '1' and 'w:' or 'l:'
        redis.call('HINCRBY', KEYS[p + PK_VERSUS], side .. ARGV[b + PA_USER_ID], 1)
      end
    end
  end
  if global then redis.call('SET', KEYS[global_keys + GK_ARCHIVE], ARGV[A_ARCHIVE], 'EX', ARGV[A_ARCHIVE_TTL]) end
end
redis.call('PUBLISH', 'durak:live:' .. ARGV[A_CHAT], ARGV[A_CHAT] .. '|' .. version)  -- keys.live_channel: open pages
return {version, old_timer}
"""
SAVE = Script("save", SEATED_RATINGS + NEXT_VERSION + SAVE_ARGUMENTS.prelude() + SAVE_BODY)
SAVE_COUNTING = Script("save", SEATED_RATINGS + COUNTING_VERSION + SAVE_ARGUMENTS.prelude() + SAVE_BODY)

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
QUARANTINE_BODY = """
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then
  local state = redis.call('GET', KEYS[2])
  return {0, current, state, redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4]),
    seated_ratings(state, KEYS[6])}
end
local state = redis.call('GET', KEYS[2])
if state then redis.call('SET', KEYS[5], state, 'EX', ARGV[2]) end
redis.call('DEL', KEYS[2])
local version = next_version(current)
redis.call('SET', KEYS[1], version)
return {version}
"""
QUARANTINE = Script("quarantine", SEATED_RATINGS + NEXT_VERSION + QUARANTINE_BODY)
QUARANTINE_COUNTING = Script("quarantine", SEATED_RATINGS + COUNTING_VERSION + QUARANTINE_BODY)

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

# KEYS: messages, state, version.  ARGV: triples of field, value, "1" to set / "0" to delete.
# The hash takes the state's remaining TTL (or a day when there is no state), so it never outlives its game
# for long. A delivery mark (`bot.outbox`: "shown:..." and "sending:..." fields, whose values start with the
# chat version shown) of a version the chat does not have is not written: it was drawn from data Redis has
# lost since (a rollback, a wipe), and would make a lost screen look current.
SET_MESSAGES = Script(
    "set_messages",
    """
local current = tonumber(redis.call('GET', KEYS[3]) or '0')
local function lost(field, value)
  if string.sub(field, 1, 6) ~= 'shown:' and string.sub(field, 1, 8) ~= 'sending:' then return false end
  local version = tonumber(string.match(value, '^%d+'))
  return version ~= nil and version > current
end
for i = 1, #ARGV, 3 do
  if ARGV[i + 2] == '1' then
    if not lost(ARGV[i], ARGV[i + 1]) then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
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
