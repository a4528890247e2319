#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Hands back jobs a worker claimed but did not start (graceful shutdown): each is pending again at its due time,
-- and the claim does not count as an attempt.
-- KEYS: the nine keys of the shard (see common.lua)
-- ARGV: 1 wake channel, 2 shard index, then pairs: job id, token
-- Returns the number of jobs handed back.
local channel = publishDenied(ARGV[1]) and '' or ARGV[1] -- see publishDenied in common.lua
local released = 0
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local env = redis.call('HGET', shardKeys[3], id)
  if env then
    local due, attempts, token, payload = string.match(env, ENVELOPE)
    if token ~= '' and token == ARGV[i + 1] then -- a dead letter's token is empty
      released = released + 1
      due = tonumber(due)
      endRunning(id, token)
      wakeIfEarliest(addPending(id, payload, due, due, math.max(0, tonumber(attempts) - 1)), due, channel, ARGV[2])
    end
  end
end
return released
