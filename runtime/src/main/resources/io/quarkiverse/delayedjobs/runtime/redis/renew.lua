-- Extends the leases of running jobs whose fencing token is still current.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the shard)
-- ARGV: 1 lease in ms, then pairs: job id, token
-- Returns the tokens of the claims that are lost (job cancelled, replaced or claimed by another worker).
local t = redis.call('TIME')
local leaseEnd = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  local env = redis.call('HGET', KEYS[3], id)
  if env and string.match(env, '^%d+|%d+|([^|]*)|') == ARGV[i + 1] then
    redis.call('ZADD', KEYS[2], leaseEnd, id)
  else
    lost[#lost + 1] = ARGV[i + 1]
  end
end
return lost
