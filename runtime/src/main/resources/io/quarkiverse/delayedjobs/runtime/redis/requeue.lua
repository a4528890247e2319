#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Moves a dead letter back to the pending jobs, due now, with its attempts reset.
-- KEYS: the nine keys of the job's shard (see common.lua)
-- ARGV: 1 job id, 2 wake channel, 3 shard index
-- Returns 1 when a dead letter was requeued, 0 when no dead letter had that id.
local bad = badCall('requeue', 3)
if bad then
  return redis.error_reply(bad)
end
bad = publishDenied(ARGV[2])
if bad then
  return redis.error_reply(bad)
end
local id = ARGV[1]
if redis.call('ZREM', shardKeys[4], id) == 0 then
  return 0
end
local now = serverNow()
local env = redis.call('HGET', shardKeys[3], id)
redis.call('HDEL', shardKeys[3], id)
redis.call('HDEL', shardKeys[5], id)
wakeIfEarliest(addPending(id, select(4, string.match(env, ENVELOPE)), now, now, 0), now, ARGV[2], ARGV[3])
return 1
