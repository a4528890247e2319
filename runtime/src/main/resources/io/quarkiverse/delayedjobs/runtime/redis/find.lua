-- Reads one job.
-- KEYS: the nine keys of the job's shard (see common.lua)
-- ARGV: 1 job id
-- Returns nil when no job has that id, else {state, envelope, last error or nil, cron or nil, score} where state is
-- PENDING, RUNNING or DEAD and score is when a pending job runs next (a retry's time), the lease end of a running one
-- (nil when its claim is gone), the time a dead one died (ms). A pending job's envelope is built from its member, with
-- an empty token. A running job is one with an envelope that is not a dead letter; the lease is its claim's.
local bad = badCall('find', 1)
if bad then
  return redis.error_reply(bad)
end
local id = ARGV[1]
local state, env, score = nil, redis.call('HGET', shardKeys[3], id), nil
if env then
  state, score = 'DEAD', redis.call('ZSCORE', shardKeys[4], id)
  if not score then
    state, score = 'RUNNING', redis.call('ZSCORE', shardKeys[2], claimOf(string.match(env, ENVELOPE_TOKEN)) or '')
  end
else
  local member, runAt = findPending(id)
  if not member then
    return false
  end
  local _, payload, due, attempts = unpackMember(member, runAt)
  state, env, score = 'PENDING', decimal(due) .. '|' .. attempts .. '||' .. payload, runAt
end
-- A running job whose claim is gone (an id holding the byte 0xFF, against the protocol, splits its claim's list) has no
-- lease: nil, as a whole element, rather than an array cut short.
return {state, env, redis.call('HGET', shardKeys[5], id), redis.call('HGET', shardKeys[7], id),
    tonumber(score) or false}
