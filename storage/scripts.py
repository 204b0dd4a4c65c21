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


# The pacing scripts' clock: ARGV[1] as seconds, or "" for the Redis server's own (one clock for every process;
# tests pass their virtual one).
NOW = """
local now
if ARGV[1] ~= '' then now = tonumber(ARGV[1]) else
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1e6
end
"""

# A Lua function the pacing scripts share: whether a table or hand about to be sent is older than one any
# process already sent or is sending for its chat (bot/outbox.py: `shown:<screen>` is "<version>" or
# "<version>:<fingerprint>", `sending:<screen>` the newest version a process was let send). Returns the newer
# version, or false; when the screen is not older it becomes the one sending.
SUPERSEDED = """
local function superseded(messages, state, shown_field, sending_field, version)
  if shown_field == '' or version <= 0 then return false end
  local marks = redis.call('HMGET', messages, shown_field, sending_field)
  local newest = math.max(tonumber(string.match(marks[1] or '', '^%d+') or '0'), tonumber(marks[2] or '0'))
  if version < newest then return newest end
  if version > newest then
    redis.call('HSET', messages, sending_field, version)
    local ttl = redis.call('PTTL', state)
    if ttl > 0 then redis.call('PEXPIRE', messages, ttl) else redis.call('EXPIRE', messages, 86400) end
  end
  return false
end
local function in_flight_elsewhere(messages, flight_field, member, now)
  if flight_field == '' then return 0 end
  local mark = redis.call('HGET', messages, flight_field)
  if not mark then return 0 end
  local by, until_ = string.match(mark, '^(.*)|([%d.e+-]+)$')
  if by == member or not until_ or tonumber(until_) <= now then return 0 end
  return math.min(0.2, tonumber(until_) - now)
end
local function take_screen(messages, message_field, flight_field, member, hold, now)
  if flight_field ~= '' then redis.call('HSET', messages, flight_field, member .. '|' .. tostring(now + hold)) end
  if message_field == '' then return '' end
  return redis.call('HGET', messages, message_field) or ''
end
local function spaced_for(messages, spaced_field, now)
  if spaced_field == '' then return 0 end
  local until_ = tonumber(redis.call('HGET', messages, spaced_field) or '0')
  return math.max(0, until_ - now)
end
local function shown_already(messages, message_field, content_field, drawn)
  if content_field == '' or drawn == '' or message_field == '' then return false end
  local marks = redis.call('HMGET', messages, message_field, content_field)
  if not marks[1] or not marks[2] then return false end
  local shown = string.match(marks[2], '^(.*)|[^|]*$') or ''
  return shown == marks[1] .. '|' .. drawn
end
local function screen_notes(messages, content_field, owed_field)
  local notes = {'', ''}
  if content_field ~= '' then notes[1] = redis.call('HGET', messages, content_field) or '' end
  if owed_field ~= '' then notes[2] = redis.call('HGET', messages, owed_field) or '' end
  return notes
end
"""

# KEYS: 1 the token's bucket, 2 the token's sends, 3 the chat's bucket, 4 the chat's sends (`keys.pace_key`);
#       on a single Redis also 5 the home chat's messages hash and 6 its state (the hash's TTL).
# ARGV: 1 now ("": the server's clock), 2 this send's member, 3 spare sends left to the chat, 4 spare sends
#       left to the token, 5 the chat's burst (0: no chat limit, a delete), 6 its rate a second, 7 its window
#       limit (0: none), 8 its window seconds, 9 the token's burst, 10 its rate, 11 its window limit, 12 its
#       window seconds, 13 the screen's delivered field ("": not a screen, or checked apart on a cluster),
#       14 its sending field, 15 its version, 16 the seconds a send not answered yet is counted after it was
#       let go, 17 the field of the screen's message id, 18 its in-flight field, 19 the seconds at most that a
#       send of the screen holds other processes' sends of it back (`FLIGHT_LANDED` ends it when its answer
#       comes), 20 the screen's spacing field ("": not spaced; `FLIGHT_LANDED` sets it), 21 the screen's
#       content field (`content:<screen>`, "<message>|<digest>|<live>" of what its message shows, set by
#       `FLIGHT_LANDED`), 22 the digest of what this send would show by an edit of the stored message (""
#       when it is no edit), 23 the screen's owed field (`owed:<screen>`: old messages still to remove, set
#       by `SCREEN_POSTED`), 24 how many settles follow, then per settle three: "t" (the token's sends) or
#       "c" (this chat's), the member, the seconds to move it by.
# A send is counted as made a moment after it was let go (it reaches Telegram later, and how much later
# varies); a settle moves it to the time its answer came (Telegram counted it somewhere in between).
# Returns {"send", now, 0, the screen's stored "<game>:<message id>" or "", its content mark or "", its owed
# removals or ""}, {"wait", seconds, the part of them the token's limits ask}, {"drop", newer version, 0} or
# {"same", now, 0}, as strings (Lua numbers become integers in replies). Nothing is taken unless it returns
# "send". A screen another process's send of it is in flight waits: two edits on their way at once may
# reach Telegram in either order, and a hand posted anew changes its message id (an edit of the old one
# would be lost with it). An edit that would show what the stored message shows already, whichever process
# sent that, is "same": Telegram would answer "message is not modified". A spaced screen (a running game's
# table) waits until its spacing after the last send of it, by any process, has passed.
PACE = Script(
    "pace",
    SUPERSEDED
    + NOW
    + """
local eps = 1e-6
for i = 25, 24 + 3 * tonumber(ARGV[24]), 3 do
  local key = ARGV[i] == 't' and KEYS[2] or KEYS[4]
  local at = redis.call('ZSCORE', key, ARGV[i + 1])
  if at then redis.call('ZADD', key, 'XX', tonumber(at) + tonumber(ARGV[i + 2]), ARGV[i + 1]) end
end
if KEYS[5] then
  local newer = superseded(KEYS[5], KEYS[6], ARGV[13], ARGV[14], tonumber(ARGV[15]))
  if newer then return {'drop', tostring(newer), '0'} end
  local held = in_flight_elsewhere(KEYS[5], ARGV[18], ARGV[2], now)
  if held > 0 then return {'wait', tostring(held), '0'} end
  if shown_already(KEYS[5], ARGV[17], ARGV[21], ARGV[22]) then return {'same', tostring(now), '0'} end
  held = spaced_for(KEYS[5], ARGV[20], now)
  if held > 0 then return {'wait', tostring(held), '0'} end
end
local function bucket(key, burst, rate, spare)
  local got = redis.call('HMGET', key, 'tokens', 'stamp', 'paused')
  local tokens, stamp = tonumber(got[1] or burst), tonumber(got[2] or now)
  if now > stamp then tokens, stamp = math.min(burst, tokens + (now - stamp) * rate), now end
  local needed, wait = math.min(burst, 1 + spare), math.max(0, tonumber(got[3] or '0') - now)
  if tokens < needed - eps then wait = math.max(wait, eps, (needed - tokens) / rate) end
  return wait, tokens, stamp
end
local function window(key, limit, seconds, spare)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - seconds)
  local allowed, count = math.max(1, limit - spare), redis.call('ZCARD', key)
  if count < allowed then return 0 end
  local at = redis.call('ZRANGE', key, count - allowed, count - allowed, 'WITHSCORES')
  return math.max(eps, tonumber(at[2]) + seconds - now + eps)
end
local chat_burst, chat_spare, token_spare = tonumber(ARGV[5]), tonumber(ARGV[3]), tonumber(ARGV[4])
local wait, chat_tokens, chat_stamp = 0, 0, now
if chat_burst > 0 then
  wait, chat_tokens, chat_stamp = bucket(KEYS[3], chat_burst, tonumber(ARGV[6]), chat_spare)
  if tonumber(ARGV[7]) > 0 then wait = math.max(wait, window(KEYS[4], tonumber(ARGV[7]), tonumber(ARGV[8]), chat_spare)) end
end
local token_wait, token_tokens, token_stamp = bucket(KEYS[1], tonumber(ARGV[9]), tonumber(ARGV[10]), token_spare)
token_wait = math.max(token_wait, window(KEYS[2], tonumber(ARGV[11]), tonumber(ARGV[12]), token_spare))
wait = math.max(wait, token_wait)
if wait > 0 then return {'wait', tostring(wait), tostring(token_wait)} end
redis.call('HSET', KEYS[1], 'tokens', token_tokens - 1, 'stamp', token_stamp)
local counted = now + tonumber(ARGV[16])
redis.call('ZADD', KEYS[2], counted, ARGV[2])
redis.call('EXPIRE', KEYS[1], 60)
redis.call('EXPIRE', KEYS[2], 60)
if chat_burst > 0 then
  redis.call('HSET', KEYS[3], 'tokens', chat_tokens - 1, 'stamp', chat_stamp)
  redis.call('EXPIRE', KEYS[3], 180)
  if tonumber(ARGV[7]) > 0 then
    redis.call('ZADD', KEYS[4], counted, ARGV[2])
    redis.call('EXPIRE', KEYS[4], 180)
  end
end
local stored, notes = '', {'', ''}
if KEYS[5] then
  stored = take_screen(KEYS[5], ARGV[17], ARGV[18], ARGV[2], tonumber(ARGV[19]), now)
  notes = screen_notes(KEYS[5], ARGV[21], ARGV[23])
end
return {'send', tostring(now), '0', stored, notes[1], notes[2]}
""",
)

# KEYS: the home chat's messages hash, its state.  ARGV: now ("": the server's clock), delivered field,
# sending field, version, message id field, in-flight field, this send's member, the hold seconds, the
# spacing field ("": none), the content field, this send's digest, the owed field (as PACE's).
# The screen's part of PACE, as a step of its own on a cluster (the chat's keys live in another slot): returns
# {"drop", newer version}, {"wait", seconds}, {"same"} or {"go", the stored message id, the content mark,
# the owed removals}; "go" takes the screen (its sending version and its in-flight mark) before the budget is
# asked: a wait there ends the mark at once.
SCREEN_TURN = Script(
    "screen_turn",
    SUPERSEDED
    + NOW
    + """
local newer = superseded(KEYS[1], KEYS[2], ARGV[2], ARGV[3], tonumber(ARGV[4]))
if newer then return {'drop', tostring(newer)} end
local held = in_flight_elsewhere(KEYS[1], ARGV[6], ARGV[7], now)
if held > 0 then return {'wait', tostring(held)} end
if shown_already(KEYS[1], ARGV[5], ARGV[10], ARGV[11]) then return {'same', tostring(now)} end
held = spaced_for(KEYS[1], ARGV[9], now)
if held > 0 then return {'wait', tostring(held)} end
local stored = take_screen(KEYS[1], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8]), now)
local notes = screen_notes(KEYS[1], ARGV[10], ARGV[12])
return {'go', stored, notes[1], notes[2]}
""",
)

# KEYS: the home chat's messages hash.  ARGV: now ("": the server's clock), a screen's in-flight field, the
# member of the send that took it, the screen's spacing field ("": none), its seconds (0: the send was not
# made), the screen's content field ("": none), what its message shows now ("-": as before, "": unknown,
# else "<message>|<digest>|<live>"), the screen's owed field, then the owed removals done (each as listed).
# Its answer came (or it failed): the screen's other sends may go, a spaced one (a running game's table)
# once its seconds from now have passed. A mark another send took since stays, and then what the message
# shows is unknown (two sends of it were on their way: either may have landed last).
FLIGHT_LANDED = Script(
    "flight_landed",
    NOW
    + """
if ARGV[4] ~= '' and tonumber(ARGV[5]) > 0 then
  redis.call('HSET', KEYS[1], ARGV[4], tostring(now + tonumber(ARGV[5])))
end
if ARGV[8] and ARGV[8] ~= '' and #ARGV > 8 then
  local done, left = {}, {}
  for i = 9, #ARGV do done[ARGV[i]] = true end
  for entry in string.gmatch(redis.call('HGET', KEYS[1], ARGV[8]) or '', '%S+') do
    if not done[entry] then left[#left + 1] = entry end
  end
  if #left > 0 then redis.call('HSET', KEYS[1], ARGV[8], table.concat(left, ' '))
  else redis.call('HDEL', KEYS[1], ARGV[8]) end
end
local mark = redis.call('HGET', KEYS[1], ARGV[2])
local ours = mark and string.sub(mark, 1, #ARGV[3] + 1) == ARGV[3] .. '|'
if ARGV[6] and ARGV[6] ~= '' and ARGV[7] ~= '-' then
  if ours and ARGV[7] ~= '' then redis.call('HSET', KEYS[1], ARGV[6], ARGV[7])
  else redis.call('HDEL', KEYS[1], ARGV[6]) end
end
if ours then
  redis.call('HDEL', KEYS[1], ARGV[2])
  return 1
end
return 0
""",
)

# KEYS: the home chat's messages hash, its state.  ARGV: a screen's message id field, the new message's
# "<game>:<message id>", the screen's in-flight field, the member of the send that posted it, the screen's
# owed field, what the old message is owed ("<chat>:<message id>:<d: delete, s: strip its buttons>", "":
# nothing).  A screen posted anew (a turn announced, a table moved down, a new game's hand): its id is the
# screen's from now on and the old message's removal is owed until done (`FLIGHT_LANDED`), so whichever
# process sends the screen next finishes it should this one fail; but only while the send's in-flight mark
# is still its own. Returns 1, or 0 when another send took the screen meanwhile (this one held it past its
# hold): that one's message stands, and this new one is the one to remove.
SCREEN_POSTED = Script(
    "screen_posted",
    """
local mark = redis.call('HGET', KEYS[1], ARGV[3])
if ARGV[3] ~= '' and not (mark and string.sub(mark, 1, #ARGV[4] + 1) == ARGV[4] .. '|') then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[6] ~= '' then
  local owed = redis.call('HGET', KEYS[1], ARGV[5])
  redis.call('HSET', KEYS[1], ARGV[5], owed and (owed .. ' ' .. ARGV[6]) or ARGV[6])
end
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) else redis.call('EXPIRE', KEYS[1], 86400) end
return 1
""",
)

# KEYS: a chat's bucket (`keys.pace_key`).  ARGV: now ("": the server's clock), seconds.  Telegram answered
# 429: no process sends to the chat for that long. Returns the time it may send again, as a string.
PACE_PAUSE = Script(
    "pace_pause",
    NOW
    + """
local until_ = math.max(tonumber(redis.call('HGET', KEYS[1], 'paused') or '0'), now + tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], 'paused', tostring(until_))
redis.call('EXPIRE', KEYS[1], math.ceil(until_ - now) + 180)
return tostring(until_)
""",
)
