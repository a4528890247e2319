#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Claims due jobs of one or more shards of a queue; for each shard in turn, it first records the successful deliveries
-- given for it (as ack.lua does), then claims: jobs whose lease ran out first (their worker died), then pending jobs
-- due by this server's clock; and when it took every job due by now, jobs due within the shard's claim-ahead: those
-- are claimed ahead, and their worker holds them until they are due (one call then claims the jobs of a stretch of
-- time rather than one job per call when they are due one by one). The two kinds have their own limits: jobs due now
-- wait for the worker's handlers, jobs claimed ahead for their time. Each claimed job gets a new fencing token and one
-- more attempt, and its envelope goes to 'jobs'; each shard's claim gets one lease for all its jobs (see common.lua),
-- which starts when the stretch ends. A plain job whose lease ran out on its last allowed attempt goes to the dead
-- letters instead.
-- Carrying the acks saves a call per batch, the commands are multi-member where the keys allow, and a worker claims
-- the shards of a round in one call when one server holds them all: a call costs little more for 30 jobs than for one.
-- KEYS: the nine keys of each shard (see common.lua), shard after shard
-- ARGV: 1 lease in ms, 2 max attempts, 3 most dead letters of a shard, 4 dead-letter retention in ms, 5 wake channel,
--       then for each shard, in the order of its keys: shard index, most jobs due now to claim, how far ahead of due
--       to claim (ms), most jobs to claim ahead, the number n of deliveries to acknowledge, then n triples: job id,
--       token, next due in ms of a recurring job ('' to remove the job)
-- Returns {now, next, dueOnly, count, id, token, attempt, due, payload, cron, id, ..., buried, id, token, attempt, due,
-- id, ..., next, dueOnly, count, ...}: now is this server's time in µs as the call ends (its worker times the jobs
-- claimed ahead from it: the later the reading, the closer to their due time they start); then for each shard, next is
-- the earliest time left in its 'due' or 'run' (ms), or -1 when both are empty; dueOnly is 1 when next is within the
-- claim's reach ahead and the claim, with room left ahead, did not take it (a retry, never claimed ahead, or a lease's
-- end), so that its worker claims the shard at that time rather than ahead of it, else 0; count is the number of jobs
-- claimed from it, six values each (cron is '' for a plain job); then buried, the number of jobs this call moved to
-- the dead letters, four values each: the job's id, the token and attempt of the delivery whose lease ran out, and the
-- job's due time (so that the worker reports them).
if #KEYS == 0 or #KEYS % 9 ~= 0 then
  return redis.error_reply('ERR claim takes nine keys per shard')
end
-- Each shard's part is checked before anything is written: a claim that failed halfway would have taken jobs off
-- 'due' and given them to no one.
for i = 1, 4 do
  if not tonumber(ARGV[i] or '') then
    return redis.error_reply('ERR claim takes a lease, max attempts, a dead-letter share and a retention as numbers')
  end
end
local at, rearms = 6, false
for _ = 1, #KEYS, 9 do
  local limit, aheadMs = tonumber(ARGV[at + 1] or ''), tonumber(ARGV[at + 2] or '')
  local ahead, acks = tonumber(ARGV[at + 3] or ''), tonumber(ARGV[at + 4] or '')
  if not (limit and aheadMs and ahead and acks) or at + 4 + 3 * acks > #ARGV then
    return redis.error_reply('ERR claim takes five numbers per shard, then its deliveries to acknowledge')
  end
  if limit + ahead > MOST_PER_SHARD or acks > MOST_PER_SHARD then
    return redis.error_reply('ERR claim takes at most ' .. MOST_PER_SHARD .. ' jobs and ' .. MOST_PER_SHARD
        .. ' deliveries to acknowledge per shard')
  end
  for i = at + 7, at + 4 + 3 * acks, 3 do
    local nextDue = ARGV[i]
    if nextDue ~= '' then
      if #nextDue > 15 or not string.match(nextDue, '^%d+$') or nextDue + 0 > LATEST_DUE then
        return redis.error_reply(BAD_NEXT_DUE)
      end
      rearms = true
    end
  end
  at = at + 5 + 3 * acks
end
local now = (serverNow())
local leaseMs = tonumber(ARGV[1])
local maxAttempts = tonumber(ARGV[2])
local deadShare = tonumber(ARGV[3])
local retention = tonumber(ARGV[4])
-- Of what a claim writes, only the acks that re-arm a recurring job publish: when the ACL lets them (see
-- publishDenied in common.lua).
local channel = (rearms and publishDenied(ARGV[5])) and '' or ARGV[5]
-- Dead letters past their retention go a few at a time, so that they go even when no job dies any more.
local pastRetention = decimal(now - retention)
-- out[1], the clock, is read again as the call ends.
local out = {0}

-- The claim of the shard under way: whether the shard holds recurring jobs, its claim number once it took a job, the
-- ids it took, and the jobs it buried (four values each, as returned). Functions defined once for the call, not once
-- per shard.
local hasCron, batch, claimed, claimedIds, buried = false, nil, 0, {}, {}
-- Claims jobs given as parallel lists (id, due, attempts before this claim, payload, and the token of the delivery
-- whose lease ran out, for those claimed again): new envelopes in one HSET.
local function claim(ids, dues, attempts, payloads, expiredTokens)
  if #ids == 0 then
    return
  end
  local crons = hasCron and redis.call('HMGET', shardKeys[7], unpack(ids)) or {}
  local fields = {}
  for k, id in ipairs(ids) do
    -- A recurring job is never buried: its worker sees the attempt past the limit and arms the next occurrence.
    if expiredTokens and attempts[k] >= maxAttempts and not crons[k] then
      bury(id, dues[k] .. '|' .. attempts[k] .. '||' .. payloads[k],
          'lease expired on attempt ' .. attempts[k] .. ' of ' .. maxAttempts, now, deadShare, retention)
      local n = #buried
      buried[n + 1], buried[n + 2], buried[n + 3], buried[n + 4] = id, expiredTokens[k], attempts[k], dues[k]
    else
      -- Numbers become text through decimal(): Lua's own number-to-text conversion is a costly floating-point print.
      if not batch then
        local number = redis.call('INCR', shardKeys[6])
        -- Never below 100 times the clock in ms, which passes any number given before (a shard makes fewer than 100
        -- claims a ms): a counter Redis lost, or rolled back (a restart from an older snapshot, a failover to a replica
        -- that lagged), gives no token of a delivery still running somewhere again.
        local floor = now * 100
        if number < floor then
          number = redis.call('INCRBY', shardKeys[6], decimal(floor - number))
        end
        batch = decimal(number)
      end
      claimed = claimed + 1
      claimedIds[claimed] = id
      local attempt = attempts[k] + 1
      local token = batch .. '.' .. decimal(claimed)
      fields[#fields + 1] = id
      fields[#fields + 1] = dues[k] .. '|' .. decimal(attempt) .. '|' .. token .. '|' .. payloads[k]
      local n = #out
      out[n + 1] = id
      out[n + 2] = token
      out[n + 3] = attempt
      out[n + 4] = dues[k]
      out[n + 5] = payloads[k]
      out[n + 6] = crons[k] or ''
    end
  end
  if #fields > 0 then
    redis.call('HSET', shardKeys[3], unpack(fields))
  end
end

-- The earliest lease end in 'run', or nil.
local function earliestLease()
  local score = redis.call('ZRANGE', shardKeys[2], '0', '0', 'WITHSCORES')[2]
  return score and tonumber(score)
end

-- Claims from each shard in turn, given its part of ARGV from 'at' (a loop, not a function: defining one costs every
-- call).
at = 6
for first = 1, #KEYS, 9 do
  if first > 1 then
    useShard(first)
  end
  local shard = ARGV[at]
  local limit = tonumber(ARGV[at + 1])
  local horizon = now + tonumber(ARGV[at + 2])
  local aheadLimit = tonumber(ARGV[at + 3])
  local acks = tonumber(ARGV[at + 4])
  local leaseEndMs = horizon + leaseMs
  local leaseEnd = decimal(leaseEndMs)
  local head = #out
  out[head + 1] = -1
  out[head + 2] = 0
  out[head + 3] = 0

  acknowledge(at + 5, at + 4 + 3 * acks, channel, shard)

  for _, old in ipairs(redis.call('ZRANGEBYSCORE', shardKeys[4], '-inf', pastRetention, 'LIMIT', '0', '10')) do
    forget(old)
  end

  -- Most shards hold no recurring job: skip that look-up then.
  hasCron = redis.call('EXISTS', shardKeys[7]) == 1
  batch, claimed, claimedIds, buried = nil, 0, {}, {}

  -- Read once: unless a lease ran out, the only later change to 'run' is this call's lease.
  local headRun = earliestLease()
  local expiredClaims = {}
  if headRun and headRun <= now then
    expiredClaims = redis.call('ZRANGEBYSCORE', shardKeys[2], '-inf', decimal(now), 'LIMIT', '0', '10')
  end

  -- Claims whose lease ran out (their worker died): their jobs still running, those whose envelope has a token of the
  -- claim, are claimed again. A claim with more of them than this call takes keeps the rest for the next call.
  for _, old in ipairs(expiredClaims) do
    if claimed >= limit then
      break
    end
    local joined = redis.call('HGET', shardKeys[9], old .. ':ids')
    local oldIds = joined and splitIds(joined) or {}
    local envs = #oldIds > 0 and redis.call('HMGET', shardKeys[3], unpack(oldIds)) or {}
    local ids, dues, attempts, payloads, tokens, rest = {}, {}, {}, {}, {}, {}
    for k, id in ipairs(oldIds) do
      local env = envs[k]
      if env then
        local due, attempt, token, payload = string.match(env, ENVELOPE)
        if claimOf(token) == old then
          if claimed + #ids < limit then
            local n = #ids + 1
            ids[n], dues[n], attempts[n], payloads[n], tokens[n] = id, due, tonumber(attempt), payload, token
          else
            rest[#rest + 1] = id
          end
        end
      end
    end
    if #rest > 0 then
      recordClaim(old, rest)
    else
      forgetClaim(old)
    end
    claim(ids, dues, attempts, payloads, tokens)
  end

  -- Pending jobs due by now, then those due by the horizon: members of 'due' scored below 256 * (now + 1), then
  -- below 256 * (horizon + 1). Either way the first members by rank. With room for jobs due now, those are read
  -- first, and the jobs ahead only when fewer were due than the room: a busy queue reads no member it does not claim
  -- (each costs Redis the print of its score).
  local room = math.max(0, limit - claimed)
  -- Whether this claim read the shard up to its horizon and had room left ahead: a time within reach that it left
  -- is one a claim ahead does not take.
  local lookedAhead = false
  if room + aheadLimit > 0 then
    local nowScore = scoreText(now + 1, 0)
    local horizonBound = '(' .. scoreText(horizon + 1, 0)
    local due
    if room == 0 then
      due = redis.call('ZRANGEBYSCORE', shardKeys[1], '-inf', horizonBound, 'WITHSCORES', 'LIMIT', '0',
          decimal(aheadLimit))
      lookedAhead = true -- aheadLimit > 0, room being 0
    else
      due = redis.call('ZRANGEBYSCORE', shardKeys[1], '-inf', '(' .. nowScore, 'WITHSCORES', 'LIMIT', '0',
          decimal(room))
      if #due < 2 * room and aheadLimit > 0 then
        lookedAhead = true
        local n = #due
        for k, v in ipairs(redis.call('ZRANGEBYSCORE', shardKeys[1], nowScore, horizonBound, 'WITHSCORES', 'LIMIT', '0',
            decimal(aheadLimit))) do
          due[n + k] = v
        end
      end
    end
    local ids, dues, attempts, payloads = {}, {}, {}, {}
    local dueNow, ahead = 0, 0
    -- Jobs due at once are often due at the same millisecond, and they come in the order of their time: the text of a
    -- time is made once for a run of them.
    local lastTime, lastText = nil, nil
    for i = 1, #due, 2 do
      local score = due[i + 1] + 0
      local time = timeOfScore(score)
      local id, payload, d, attempt = unpackMember(due[i], time)
      if time <= now then
        if dueNow == room then
          break -- more jobs are due now than the worker has handlers for: none is claimed ahead
        end
        dueNow = dueNow + 1
      elseif ahead < aheadLimit and d == time then
        ahead = ahead + 1
      else
        break -- enough, or a retry: its worker would start it at its due time, which is not the time of the retry
      end
      local k = #ids + 1
      if d ~= lastTime then
        lastTime, lastText = d, decimal(d)
      end
      ids[k], dues[k], attempts[k], payloads[k] = id, lastText, attempt, payload
      redis.call('HDEL', indexKey(bucketOfScored(id, score, time)), id)
    end
    lookedAhead = lookedAhead and ahead < aheadLimit
    if #ids > 0 then
      -- They are the first members by rank: removing them by rank spares a search of the skip list for each.
      redis.call('ZREMRANGEBYRANK', shardKeys[1], '0', decimal(#ids - 1))
      claim(ids, dues, attempts, payloads, nil)
    end
  end

  if #expiredClaims > 0 then
    headRun = earliestLease()
  end
  if claimed > 0 then
    recordClaim(batch, claimedIds)
    redis.call('ZADD', shardKeys[2], leaseEnd, batch)
    headRun = math.min(headRun or leaseEndMs, leaseEndMs)
  end

  local headDue = earliestPending()
  if headDue and headRun then
    out[head + 1] = math.min(headDue, headRun)
  elseif headDue or headRun then
    out[head + 1] = headDue or headRun
  end
  local nextTime = out[head + 1]
  if lookedAhead and nextTime > now and nextTime <= horizon then
    out[head + 2] = 1
  end
  out[head + 3] = claimed
  local n = #out
  out[n + 1] = #buried / 4
  for k = 1, #buried do
    out[n + 1 + k] = buried[k]
  end
  at = at + 5 + 3 * acks
end
local endMs, endMicros = serverNow()
out[1] = endMs * 1000 + endMicros
return out
