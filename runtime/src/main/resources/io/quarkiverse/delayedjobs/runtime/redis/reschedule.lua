-- Moves the due time of a pending job. Running and dead jobs are not moved.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the job's shard)
-- ARGV: 1 job id, 2 due time in ms since the epoch ('at') or delay in ms ('in'), 3 'at' | 'in',
--       4 wake channel, 5 shard index
-- Returns 1 when the job was moved, 0 when no pending job had that id.
local id = ARGV[1]
if not string.match(ARGV[2], '^%d+$') or (ARGV[3] ~= 'at' and ARGV[3] ~= 'in') then
  return redis.error_reply('ERR due must be a whole number of ms, not negative, followed by at or in')
end
if not redis.call('ZSCORE', KEYS[1], id) then
  return 0
end
local due = tonumber(ARGV[2])
if ARGV[3] == 'in' then
  local t = redis.call('TIME')
  due = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + due
end
local env = redis.call('HGET', KEYS[3], id)
redis.call('HSET', KEYS[3], id, string.format('%d', due) .. string.sub(env, string.find(env, '|', 1, true), -1))
redis.call('ZADD', KEYS[1], due, id)
if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
  redis.call('PUBLISH', ARGV[4], ARGV[5] .. ':' .. string.format('%d', due))
end
return 1
