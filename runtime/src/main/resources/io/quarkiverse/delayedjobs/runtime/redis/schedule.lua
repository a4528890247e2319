-- Stores a job, or applies the conflict policy when a pending or running job has the same id.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the job's shard)
-- ARGV: 1 job id, 2 payload (JSON text), 3 due time in ms since the epoch ('at') or delay in ms ('in'),
--       4 'at' | 'in' (a delay is measured from this server's clock), 5 KEEP | REPLACE | KEEP_EARLIER | KEEP_LATER,
--       6 wake channel, 7 shard index
-- Returns {result, due}: result is CREATED, REPLACED or KEPT; due is the due time the stored job has (ms).
local id = ARGV[1]
if not string.match(ARGV[3], '^%d+$') or (ARGV[4] ~= 'at' and ARGV[4] ~= 'in') then
  return redis.error_reply('ERR due must be a whole number of ms, not negative, followed by at or in')
end
local policy = ARGV[5]
if policy ~= 'KEEP' and policy ~= 'REPLACE' and policy ~= 'KEEP_EARLIER' and policy ~= 'KEEP_LATER' then
  return redis.error_reply('ERR policy must be KEEP, REPLACE, KEEP_EARLIER or KEEP_LATER')
end
local due = tonumber(ARGV[3])
if ARGV[4] == 'in' then
  local t = redis.call('TIME')
  due = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + due
end
local result = 'CREATED'
local old = redis.call('HGET', KEYS[3], id)
-- A dead letter never conflicts: scheduling the id again replaces it.
if old and not redis.call('ZSCORE', KEYS[4], id) then
  local oldDue = tonumber(string.match(old, '^(%d+)|'))
  if policy == 'KEEP' or (policy == 'KEEP_EARLIER' and oldDue <= due) or (policy == 'KEEP_LATER' and oldDue >= due) then
    return {'KEPT', oldDue}
  end
  result = 'REPLACED'
end
if old then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('HDEL', KEYS[5], id)
  redis.call('HDEL', KEYS[7], id)
end
redis.call('HSET', KEYS[3], id, string.format('%d|0||', due) .. ARGV[2])
redis.call('ZADD', KEYS[1], due, id)
if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
  redis.call('PUBLISH', ARGV[6], ARGV[7] .. ':' .. string.format('%d', due))
end
return {result, due}
