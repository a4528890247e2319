-- Counts the jobs of one shard.
-- KEYS: the eight keys of the shard (see common.lua)
-- ARGV: none
-- Returns {pending, running, dead, earliest pending due time in ms or -1, now in ms}.
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[4]),
  earliestPending() or -1, serverNow()}
