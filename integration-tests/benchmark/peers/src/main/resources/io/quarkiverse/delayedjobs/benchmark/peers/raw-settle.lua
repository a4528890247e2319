-- Looks up members of a sorted set once each, so that Redis finishes growing its hash table after a bulk load, as the
-- extension's W6 does for its keys (see settle.lua in the benchmark application).
-- KEYS: 1 the sorted set
-- ARGV: 1 first rank, 2 how many (at most 5000: one unpack)
-- Returns how many were looked up.
local first = tonumber(ARGV[1])
local members = redis.call('ZRANGE', KEYS[1], first, first + tonumber(ARGV[2]) - 1)
if #members > 0 then
  redis.call('ZMSCORE', KEYS[1], unpack(members))
end
return #members
