"""The Lua scripts of the shared flood limits (`storage.pace`): one send's turn, a screen's turn on a cluster,
a send landed, a screen posted anew, a chat paused. Each runs atomically inside Redis, as the store's do
(`storage.scripts`)."""

from __future__ import annotations

from storage.scripts import Script

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
