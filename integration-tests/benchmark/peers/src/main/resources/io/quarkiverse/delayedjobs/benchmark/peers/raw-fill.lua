-- Fills a sorted set with generated members, for the raw ceiling: members ARGV[1]..ARGV[2] named prefix .. n, each
-- scored base + n mod spread; with a hash name in KEYS[2], each member also gets the payload there.
-- KEYS: 1 sorted set, 2 hash ('' for none)
-- ARGV: 1 first n, 2 last n, 3 prefix, 4 base score, 5 spread, 6 payload
-- Returns the number of members added.
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local base, spread = tonumber(ARGV[4]), tonumber(ARGV[5])
local added = 0
local n = first
while n <= last do
  local scored, fields = {}, {}
  local stop = math.min(last, n + 999)
  for i = n, stop do
    local member = ARGV[3] .. i
    scored[#scored + 1] = base + i % spread
    scored[#scored + 1] = member
    fields[#fields + 1] = member
    fields[#fields + 1] = ARGV[6]
  end
  added = added + redis.call('ZADD', KEYS[1], unpack(scored))
  if KEYS[2] ~= '' then
    redis.call('HSET', KEYS[2], unpack(fields))
  end
  n = stop + 1
end
return added
