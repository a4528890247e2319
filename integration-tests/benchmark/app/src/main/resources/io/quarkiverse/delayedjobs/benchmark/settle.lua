-- Benchmark only: looks up members of a sorted set, or fields of a hash, once each, so that Redis finishes growing the
-- key's hash table. Redis moves a grown table's entries to the new one a bucket per operation on the key, so right
-- after a bulk load the first operations on a big key pay for the move: a cost of the load, not of the key's size.
-- Looking up every member once moves at least as many buckets as the old table had. The raw ceiling's W6 (the peers
-- module) runs this script too, on its one sorted set.
-- KEYS: 1 a sorted set or a hash
-- ARGV: 1 first rank (sorted set) or position in HKEYS (hash), from 0, 2 how many (at most 5000: one unpack)
-- Returns how many were looked up.
local first, count = tonumber(ARGV[1]), tonumber(ARGV[2])
if redis.call('TYPE', KEYS[1])['ok'] == 'zset' then
  local members = redis.call('ZRANGE', KEYS[1], first, first + count - 1)
  if #members > 0 then
    redis.call('ZMSCORE', KEYS[1], unpack(members))
  end
  return #members
end
local fields = redis.call('HKEYS', KEYS[1])
local last = math.min(#fields, first + count)
if last > first then
  redis.call('HMGET', KEYS[1], unpack(fields, first + 1, last))
end
return math.max(0, last - first)
