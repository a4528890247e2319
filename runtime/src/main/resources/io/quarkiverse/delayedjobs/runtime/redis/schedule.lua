-- Stores jobs of one shard, each applying its conflict policy when a pending or running job has the same id. One call
-- may carry many jobs, handled in order: a producer sending many at once pays the script call once.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the shard)
-- ARGV: 1 wake channel, 2 shard index, then for each job five values: job id, payload (JSON text), due time in ms
--       since the epoch ('at') or delay in ms ('in'), 'at' | 'in' (a delay is measured from this server's clock),
--       KEEP | REPLACE | KEEP_EARLIER | KEEP_LATER
-- Returns {result, due, result, due, ...}, one pair per job in order: result is CREATED, REPLACED or KEPT; due is the
-- due time the stored job has (ms).
local policies = {KEEP = true, REPLACE = true, KEEP_EARLIER = true, KEEP_LATER = true}
for i = 3, #ARGV, 5 do
  if not string.match(ARGV[i + 2], '^%d+$') or (ARGV[i + 3] ~= 'at' and ARGV[i + 3] ~= 'in') then
    return redis.error_reply('ERR due must be a whole number of ms, not negative, followed by at or in')
  end
  if not policies[ARGV[i + 4]] then
    return redis.error_reply('ERR policy must be KEEP, REPLACE, KEEP_EARLIER or KEEP_LATER')
  end
end
local now = nil
local headBefore = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
local out = {}
for i = 3, #ARGV, 5 do
  local id, policy = ARGV[i], ARGV[i + 4]
  local due = tonumber(ARGV[i + 2])
  if ARGV[i + 3] == 'in' then
    if not now then
      local t = redis.call('TIME')
      now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    end
    due = now + due
  end
  local result = 'CREATED'
  local old = redis.call('HGET', KEYS[3], id)
  -- A dead letter never conflicts: scheduling the id again replaces it.
  if old and not redis.call('ZSCORE', KEYS[4], id) then
    local oldDue = tonumber(string.match(old, '^(%d+)|'))
    if policy == 'KEEP' or (policy == 'KEEP_EARLIER' and oldDue <= due) or (policy == 'KEEP_LATER' and oldDue >= due) then
      result = 'KEPT'
      due = oldDue
    else
      result = 'REPLACED'
    end
  end
  if result ~= 'KEPT' then
    if old then
      redis.call('ZREM', KEYS[2], id)
      redis.call('ZREM', KEYS[4], id)
      redis.call('HDEL', KEYS[5], id)
      redis.call('HDEL', KEYS[7], id)
    end
    redis.call('HSET', KEYS[3], id, string.format('%d|0||', due) .. ARGV[i + 1])
    redis.call('ZADD', KEYS[1], due, id)
  end
  out[#out + 1] = result
  out[#out + 1] = due
end
-- One wake-up for the call, when the shard's earliest job is now earlier than before.
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
if head and (not headBefore or tonumber(head) < tonumber(headBefore)) then
  redis.call('PUBLISH', ARGV[1], ARGV[2] .. ':' .. string.format('%d', tonumber(head)))
end
return out
