-- Counts the jobs of one shard.
-- KEYS: the nine keys of the shard (see common.lua)
-- ARGV: none
-- Returns {pending, running, dead, earliest pending due time in ms or -1, now in ms}.
-- Running jobs are those with an envelope that are not dead letters.
local bad = badCall('stats', 0)
if bad then
  return redis.error_reply(bad)
end
local dead = redis.call('ZCARD', shardKeys[4])
return {redis.call('ZCARD', shardKeys[1]), redis.call('HLEN', shardKeys[3]) - dead, dead, earliestPending() or -1,
  (serverNow())}
