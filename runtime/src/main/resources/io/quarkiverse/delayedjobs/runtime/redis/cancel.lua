-- Removes a pending, running or dead job. A running delivery of it can no longer ack, retry or renew it.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the job's shard)
-- ARGV: 1 job id
-- Returns 1 when a job was removed, 0 when no job had that id.
local id = ARGV[1]
if redis.call('HDEL', KEYS[3], id) == 0 then
  return 0
end
redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[4], id)
redis.call('HDEL', KEYS[5], id)
redis.call('HDEL', KEYS[7], id)
return 1
