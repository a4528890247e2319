#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Records a failed delivery: the job is due again after the given delay, or moves to the dead letters when it had
-- its last attempt or cannot be retried. Does nothing when the fencing token is no longer the given one.
-- A recurring job is never dead-lettered: when it cannot be retried before its next occurrence, that occurrence is
-- armed instead.
-- KEYS: the nine keys of the shard (see common.lua)
-- ARGV: 1 job id, 2 token, 3 retry delay in ms, 4 error text, 5 max attempts, 6 most dead letters of the shard,
--       7 dead-letter retention in ms, 8 'retry' | 'dead' (dead: no retry, e.g. an unreadable payload),
--       9 wake channel, 10 shard index, 11 next occurrence in ms of a recurring job, or ''
-- The error is written first: should that write fail (the key of another type, say), nothing is written and the
-- worker's call sent again finds the job as it was.
-- Returns {outcome, at}: outcome 0 when the token was stale, 1 when retried (at = new due time in ms),
-- 2 when dead-lettered (at = now), 3 when the next occurrence was armed (at = its due time in ms).
local id = ARGV[1]
local env = redis.call('HGET', shardKeys[3], id)
if not env then
  return {0, 0}
end
local due, attempts, token, payload = string.match(env, ENVELOPE)
if token == '' or token ~= ARGV[2] then -- a dead letter's token is empty
  return {0, 0}
end
local now = serverNow()
local gaveUp = ARGV[8] == 'dead' or tonumber(attempts) >= tonumber(ARGV[5])
if ARGV[11] ~= '' and (gaveUp or now + tonumber(ARGV[3]) >= tonumber(ARGV[11])) then
  local nextDue = tonumber(ARGV[11])
  redis.call('HSET', shardKeys[5], id, ARGV[4])
  endRunning(id, token)
  wakeIfEarliest(addPending(id, payload, nextDue, nextDue, 0), nextDue, publishDenied(ARGV[9]) and '' or ARGV[9],
      ARGV[10]) -- see publishDenied in common.lua
  return {3, nextDue}
end
if gaveUp then
  bury(id, due .. '|' .. attempts .. '||' .. payload, ARGV[4], now, tonumber(ARGV[6]), tonumber(ARGV[7]))
  endClaimedJob(token)
  return {2, now}
end
local at = now + tonumber(ARGV[3])
-- The job keeps its original due time: lateness and JobContext.dueAt() refer to it.
redis.call('HSET', shardKeys[5], id, ARGV[4])
endRunning(id, token)
wakeIfEarliest(addPending(id, payload, at, tonumber(due), tonumber(attempts)), at,
    publishDenied(ARGV[9]) and '' or ARGV[9], ARGV[10]) -- see publishDenied in common.lua
return {1, at}
