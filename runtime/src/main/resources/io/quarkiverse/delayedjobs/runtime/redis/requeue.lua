-- Moves a dead letter back to the pending jobs, due now, with its attempts reset.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the job's shard)
-- ARGV: 1 job id, 2 wake channel, 3 shard index
-- Returns 1 when a dead letter was requeued, 0 when no dead letter had that id.
local id = ARGV[1]
if redis.call('ZREM', KEYS[4], id) == 0 then
  return 0
end
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local env = redis.call('HGET', KEYS[3], id)
redis.call('HSET', KEYS[3], id, now .. '|0||' .. string.match(env, '^%d+|%d+|[^|]*|(.*)$'))
redis.call('HDEL', KEYS[5], id)
redis.call('ZADD', KEYS[1], now, id)
if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
  redis.call('PUBLISH', ARGV[2], ARGV[3] .. ':' .. now)
end
return 1
