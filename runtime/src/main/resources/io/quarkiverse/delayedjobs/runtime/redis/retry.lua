-- Records a failed delivery: the job is due again after the given delay, or moves to the dead letters when it had
-- its last attempt or cannot be retried. Does nothing when the fencing token is no longer the given one.
-- A recurring job is never dead-lettered: when it cannot be retried before its next occurrence, that occurrence is
-- armed instead.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the shard)
-- ARGV: 1 job id, 2 token, 3 retry delay in ms, 4 error text, 5 max attempts, 6 most dead letters of the shard,
--       7 dead-letter retention in ms, 8 'retry' | 'dead' (dead: no retry, e.g. an unreadable payload),
--       9 wake channel, 10 shard index, 11 next occurrence in ms of a recurring job, or ''
-- Returns {outcome, at}: outcome 0 when the token was stale, 1 when retried (at = new due time in ms),
-- 2 when dead-lettered (at = now), 3 when the next occurrence was armed (at = its due time in ms).
local id = ARGV[1]
local env = redis.call('HGET', KEYS[3], id)
if not env then
  return {0, 0}
end
local due, attempts, token, payload = string.match(env, '^(%d+)|(%d+)|([^|]*)|(.*)$')
if token ~= ARGV[2] then
  return {0, 0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREM', KEYS[2], id)
redis.call('HSET', KEYS[5], id, ARGV[4])
local gaveUp = ARGV[8] == 'dead' or tonumber(attempts) >= tonumber(ARGV[5])
if ARGV[11] ~= '' and (gaveUp or now + tonumber(ARGV[3]) >= tonumber(ARGV[11])) then
  redis.call('HSET', KEYS[3], id, ARGV[11] .. '|0||' .. payload)
  redis.call('ZADD', KEYS[1], ARGV[11], id)
  if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
    redis.call('PUBLISH', ARGV[9], ARGV[10] .. ':' .. ARGV[11])
  end
  return {3, tonumber(ARGV[11])}
end
if gaveUp then
  redis.call('HSET', KEYS[3], id, due .. '|' .. attempts .. '||' .. payload)
  redis.call('ZADD', KEYS[4], now, id)
  local function forget(old)
    redis.call('ZREM', KEYS[4], old)
    redis.call('HDEL', KEYS[3], old)
    redis.call('HDEL', KEYS[5], old)
    redis.call('HDEL', KEYS[7], old)
  end
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[7]), 'LIMIT', 0, 100)) do
    forget(old)
  end
  local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[6])
  if over > 0 then
    for _, old in ipairs(redis.call('ZRANGE', KEYS[4], 0, over - 1)) do
      forget(old)
    end
  end
  return {2, now}
end
local at = now + tonumber(ARGV[3])
-- The envelope keeps the original due time: lateness and JobContext.dueAt() refer to it.
redis.call('HSET', KEYS[3], id, due .. '|' .. attempts .. '||' .. payload)
redis.call('ZADD', KEYS[1], at, id)
if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
  redis.call('PUBLISH', ARGV[9], ARGV[10] .. ':' .. string.format('%d', at))
end
return {1, at}
