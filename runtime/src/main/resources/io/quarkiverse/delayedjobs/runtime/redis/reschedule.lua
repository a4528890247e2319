#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Moves the due time of a pending job, or of one its worker claimed ahead of its due time and holds until then, due
-- REVOKE_MARGIN_MS or more from now: that claim is revoked (see common.lua). Jobs whose handler may have started, or
-- may start before the revocation reaches it, and dead ones, are not moved.
-- KEYS: the nine keys of the job's shard (see common.lua)
-- ARGV: 1 job id, 2 due time in ms since the epoch ('at') or delay in ms ('in'), 3 'at' | 'in',
--       4 wake channel, 5 shard index
-- Returns 1 when the job was moved, 0 when no pending job, or held job that far from its due time, had that id.
local bad = badCall('reschedule', 5)
if bad then
  return redis.error_reply(bad)
end
local id = ARGV[1]
if #ARGV[2] > 15 or not string.match(ARGV[2], '^%d+$') or (ARGV[3] ~= 'at' and ARGV[3] ~= 'in') then
  return redis.error_reply(BAD_DUE)
end
local due = ARGV[2] + 0
if ARGV[3] == 'in' then
  -- A delay ends once it has passed: the ms begun counts as a whole one. A delay of zero is due now.
  local ms, micros = serverNow()
  due = (due > 0 and micros > 0) and ms + due + 1 or ms + due
end
if due > LATEST_DUE then
  return redis.error_reply(BAD_DUE)
end
bad = publishDenied(ARGV[4])
if bad then
  return redis.error_reply(bad)
end
local payload, attempts = nil, nil
local member, runAt = findPending(id)
if member then
  local _
  _, payload, _, attempts = unpackMember(member, runAt)
  removePending(id, member)
else
  local env = redis.call('HGET', shardKeys[3], id)
  if not env then
    return 0
  end
  local heldDue, heldAttempts, token, heldPayload = string.match(env, ENVELOPE)
  if not revokeIfHeld(heldDue, token, ARGV[4], ARGV[5]) then
    return 0
  end
  endRunning(id, token)
  -- As when a worker hands a job back: the claim does not count as an attempt.
  payload, attempts = heldPayload, tonumber(heldAttempts) - 1
end
wakeIfEarliest(addPending(id, payload, due, due, attempts), due, ARGV[4], ARGV[5])
return 1
