#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Removes a pending, running or dead job. A running delivery of it can no longer ack, retry or renew it, and a job its
-- worker claimed ahead of its due time is revoked (see common.lua): it does not start.
-- KEYS: the nine keys of the job's shard (see common.lua)
-- ARGV: 1 job id, 2 wake channel, 3 shard index
-- Returns 1 when a job was removed, 0 when no job had that id.
local bad = badCall('cancel', 3)
if bad then
  return redis.error_reply(bad)
end
bad = publishDenied(ARGV[2])
if bad then
  return redis.error_reply(bad)
end
local id = ARGV[1]
if not dropEnvelope(id, ARGV[2], ARGV[3]) then
  local member = findPending(id)
  if not member then
    return 0
  end
  removePending(id, member)
end
redis.call('HDEL', shardKeys[5], id)
redis.call('HDEL', shardKeys[7], id)
return 1
