-- Hands back jobs a worker claimed but did not start (graceful shutdown): each is pending again at its due time,
-- and the claim does not count as an attempt.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the shard)
-- ARGV: 1 wake channel, 2 shard index, then pairs: job id, token
-- Returns the number of jobs handed back.
local released = 0
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local env = redis.call('HGET', KEYS[3], id)
  if env then
    local due, attempts, token, payload = string.match(env, '^(%d+)|(%d+)|([^|]*)|(.*)$')
    if token == ARGV[i + 1] then
      released = released + 1
      redis.call('ZREM', KEYS[2], id)
      redis.call('HSET', KEYS[3], id, due .. '|' .. math.max(0, tonumber(attempts) - 1) .. '||' .. payload)
      redis.call('ZADD', KEYS[1], due, id)
      if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
        redis.call('PUBLISH', ARGV[1], ARGV[2] .. ':' .. due)
      end
    end
  end
end
return released
