#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Extends the leases of the claims of running jobs whose fencing token is still current.
-- KEYS: the nine keys of the shard (see common.lua)
-- ARGV: 1 lease in ms, then pairs: job id, token
-- Returns the tokens of the claims that are lost (job cancelled, replaced or claimed by another worker).
if #ARGV < 3 then
  return {}
end
if #ARGV - 1 > 2 * MOST_PER_SHARD then
  return redis.error_reply('ERR renew takes at most ' .. MOST_PER_SHARD .. ' jobs per call')
end
local leaseEnd = decimal(serverNow() + tonumber(ARGV[1]))
local ids = {}
for i = 2, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
end
local envs = redis.call('HMGET', shardKeys[3], unpack(ids))
local claims, lost = {}, {}
for k, id in ipairs(ids) do
  local token = ARGV[2 * k + 1]
  if envs[k] and token ~= '' and string.match(envs[k], ENVELOPE_TOKEN) == token then
    local claim = claimOf(token)
    if claim then
      claims[claim] = true
    end
  else
    lost[#lost + 1] = token
  end
end
local leases = {}
for claim in pairs(claims) do
  leases[#leases + 1] = leaseEnd
  leases[#leases + 1] = claim
end
if #leases > 0 then
  redis.call('ZADD', shardKeys[2], 'XX', unpack(leases))
end
return lost
