-- Removes a pending, running or dead job. A running delivery of it can no longer ack, retry or renew it.
-- KEYS: the nine keys of the job's shard (see common.lua)
-- ARGV: 1 job id
-- Returns 1 when a job was removed, 0 when no job had that id.
local id = ARGV[1]
if not dropEnvelope(id) then
  local member = findPending(id)
  if not member then
    return 0
  end
  removePending(id, member)
end
redis.call('HDEL', KEYS[5], id)
redis.call('HDEL', KEYS[7], id)
return 1
