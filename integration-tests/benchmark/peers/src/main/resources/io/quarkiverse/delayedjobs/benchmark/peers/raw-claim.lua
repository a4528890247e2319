-- The raw ceiling of a claim: moves up to ARGV[3] due members from one sorted set to another, re-scored to
-- now + lease, and returns them. No payload, no attempts, no token: the least a claim can do.
-- KEYS: 1 due, 2 running
-- ARGV: 1 now in ms, 2 lease in ms, 3 most members to move
-- Returns the members moved.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
if #ids == 0 then
  return ids
end
local leaseEnd = tonumber(ARGV[1]) + tonumber(ARGV[2])
local scored = {}
for i = 1, #ids do
  scored[2 * i - 1] = leaseEnd
  scored[2 * i] = ids[i]
end
redis.call('ZADD', KEYS[2], unpack(scored))
redis.call('ZREM', KEYS[1], unpack(ids))
return ids
