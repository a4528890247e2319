-- Creates or updates a recurring job. The same schedule and payload again leave the armed occurrence alone, so every
-- instance can register its static schedules at startup; a changed one replaces the old one at once.
-- KEYS: the nine keys of the job's shard (see common.lua)
-- ARGV: 1 job id, 2 payload (JSON text), 3 schedule 'misfire|zone|expression', 4 first occurrence in ms (used when
--       the job is created or changed), or '' for a schedule with no occurrence left: a job of another definition is
--       then removed and nothing is armed, 5 wake channel, 6 shard index
-- Returns {result, due}: result is CREATED, REPLACED or KEPT; due is the occurrence the job is armed at (ms) (the due
-- time of a kept dead letter); or {ENDED, -1} when a schedule with no occurrence left arms nothing.
local bad = badCall('recurring', 6)
if bad then
  return redis.error_reply(bad)
end
local id = ARGV[1]
if #id == 0 or #id > 512 then
  return redis.error_reply('ERR id must be 1 to 512 bytes')
end
bad = badId(id)
if bad then
  return redis.error_reply(bad)
end
if ARGV[4] ~= '' and (#ARGV[4] > 15 or not string.match(ARGV[4], '^%d+$') or ARGV[4] + 0 > LATEST_DUE) then
  return redis.error_reply(
      'ERR first occurrence must be a whole number of ms, not negative, no later than 253402300799999')
end
if not string.match(ARGV[3], '^[A-Z_]+|[^|]+|.+$') then
  return redis.error_reply('ERR schedule must be misfire|zone|expression')
end
bad = publishDenied(ARGV[5])
if bad then
  return redis.error_reply(bad)
end
-- The existing job: running or dead ones have an envelope, pending ones a member.
local env = redis.call('HGET', shardKeys[3], id)
local dead = env and redis.call('ZSCORE', shardKeys[4], id)
local member, due, payload = nil, nil, nil
if env then
  local envDue, _, _, envPayload = string.match(env, ENVELOPE)
  due, payload = tonumber(envDue), envPayload
else
  local runAt
  member, runAt = findPending(id)
  if member then
    payload, due = select(2, unpackMember(member, runAt))
  end
end
local live = (env and not dead) or member
local same = payload == ARGV[2] and redis.call('HGET', shardKeys[7], id) == ARGV[3]
-- A dead letter of the same schedule is armed again, unless the schedule has no occurrence left: then it stays, and
-- its last failure stays visible.
if same and (live or ARGV[4] == '') then
  return {'KEPT', due}
end
if env then
  dropEnvelope(id, ARGV[5], ARGV[6])
elseif member then
  redis.call('ZREM', shardKeys[1], member)
end
redis.call('HDEL', shardKeys[5], id)
if ARGV[4] == '' then
  if member then
    redis.call('HDEL', indexKey(bucketOf(id)), id)
  end
  redis.call('HDEL', shardKeys[7], id)
  return {'ENDED', -1}
end
redis.call('HSET', shardKeys[7], id, ARGV[3])
local first = tonumber(ARGV[4])
wakeIfEarliest(addPending(id, ARGV[2], first, first, 0), first, ARGV[5], ARGV[6])
return {(env or member) and 'REPLACED' or 'CREATED', first}
