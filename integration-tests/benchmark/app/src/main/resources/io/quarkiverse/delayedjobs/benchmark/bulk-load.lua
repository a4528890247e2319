-- Benchmark only: stores many pending jobs in one shard at once, in the layout schedule.lua writes (the benchmark
-- sends the extension's common.lua before this file, and addPending is its function), without the conflict checks
-- and wake-ups. The W6 workload checks through the public API that the jobs it loaded are readable.
-- KEYS: the nine keys of the shard, as QueueKeys lists them
-- ARGV: 1 payload (JSON text), then pairs: job id, due time in ms
-- Returns the number of jobs stored.
for i = 2, #ARGV, 2 do
  local due = tonumber(ARGV[i + 1])
  addPending(ARGV[i], ARGV[1], due, due, 0)
end
return (#ARGV - 1) / 2
