-- Benchmark only: stores many pending jobs in one shard at once, in the layout schedule.lua writes
-- (score = due time in 'due', envelope 'due|attempts|token|payload' in 'jobs'), without its conflict checks and
-- wake-ups. The W6 workload checks through the public API that the jobs it loaded are readable.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the shard, as QueueKeys lists them)
-- ARGV: 1 payload (JSON text), then pairs: job id, due time in ms
-- Returns the number of jobs stored.
local zadd = {}
local hset = {}
for i = 2, #ARGV, 2 do
  zadd[#zadd + 1] = ARGV[i + 1]
  zadd[#zadd + 1] = ARGV[i]
  hset[#hset + 1] = ARGV[i]
  hset[#hset + 1] = ARGV[i + 1] .. '|0||' .. ARGV[1]
end
redis.call('ZADD', KEYS[1], unpack(zadd))
redis.call('HSET', KEYS[3], unpack(hset))
return #zadd / 2
