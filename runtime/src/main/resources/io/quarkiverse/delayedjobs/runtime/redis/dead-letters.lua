-- Lists the dead letters of one shard, newest first.
-- KEYS: the nine keys of the shard (see common.lua)
-- ARGV: 1 most dead letters to list
-- Returns {id, died at in ms, envelope, last error, cron or nil, id, ...}.
local bad = badCall('dead-letters', 1)
if bad then
  return redis.error_reply(bad)
end
-- At most as many as the Java API lists (JobArguments.MAX_LIST_LIMIT): each costs three reads, in one script.
local limit = tonumber(ARGV[1])
if not limit or limit < 1 or limit > 10000 or limit % 1 ~= 0 then
  return redis.error_reply('ERR most dead letters to list must be a whole number from 1 to 10000')
end
local out = {}
local dead = redis.call('ZREVRANGE', shardKeys[4], 0, limit - 1, 'WITHSCORES')
for i = 1, #dead, 2 do
  local id = dead[i]
  local n = #out
  out[n + 1] = id
  out[n + 2] = tonumber(dead[i + 1])
  out[n + 3] = redis.call('HGET', shardKeys[3], id)
  out[n + 4] = redis.call('HGET', shardKeys[5], id)
  out[n + 5] = redis.call('HGET', shardKeys[7], id)
end
return out
