-- Creates or updates a recurring job. The same schedule and payload again leave the armed occurrence alone, so every
-- instance can register its static schedules at startup; a changed one replaces the old one at once.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the job's shard)
-- ARGV: 1 job id, 2 payload (JSON text), 3 schedule 'misfire|zone|expression', 4 first occurrence in ms (used when
--       the job is created or changed), 5 wake channel, 6 shard index
-- Returns {result, due}: result is CREATED, REPLACED or KEPT; due is the occurrence the job is armed at (ms).
local id = ARGV[1]
if not string.match(ARGV[4], '^%d+$') then
  return redis.error_reply('ERR first occurrence must be a whole number of ms, not negative')
end
if not string.match(ARGV[3], '^[A-Z_]+|[^|]+|.+$') then
  return redis.error_reply('ERR schedule must be misfire|zone|expression')
end
local env = redis.call('HGET', KEYS[3], id)
local dead = redis.call('ZSCORE', KEYS[4], id)
if env and not dead and redis.call('HGET', KEYS[7], id) == ARGV[3] then
  local due, payload = string.match(env, '^(%d+)|%d+|[^|]*|(.*)$')
  if payload == ARGV[2] then
    return {'KEPT', tonumber(due)}
  end
end
local result = 'CREATED'
if env and not dead then
  result = 'REPLACED'
end
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[4], id)
redis.call('HDEL', KEYS[5], id)
redis.call('HSET', KEYS[3], id, ARGV[4] .. '|0||' .. ARGV[2])
redis.call('HSET', KEYS[7], id, ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[4], id)
if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
  redis.call('PUBLISH', ARGV[5], ARGV[6] .. ':' .. ARGV[4])
end
return {result, tonumber(ARGV[4])}
