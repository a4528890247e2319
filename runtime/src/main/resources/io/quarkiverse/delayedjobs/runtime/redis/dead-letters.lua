-- Lists the dead letters of one shard, newest first.
-- KEYS: the nine keys of the shard (see common.lua)
-- ARGV: 1 most dead letters to list
-- Returns {id, died at in ms, envelope, last error, cron or nil, id, ...}.
local out = {}
local dead = redis.call('ZREVRANGE', shardKeys[4], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
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
