-- Records the given successful deliveries (as ack.lua does), then claims due jobs of the shard: jobs whose lease ran
-- out first (their worker died), then pending jobs due by this server's clock. Each claimed job gets a new fencing
-- token, one more attempt and a lease: it moves to 'run' with the lease end as score. A plain job whose lease ran out
-- on its last allowed attempt goes to the dead letters instead. Carrying the acks saves a call per batch, and the
-- commands are multi-member (HMGET, HSET, ZREM, ZADD of the whole batch): a call costs little more for 30 jobs
-- than for one.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the shard)
-- ARGV: 1 most jobs to claim, 2 lease in ms, 3 max attempts, 4 most dead letters of the shard,
--       5 dead-letter retention in ms, 6 wake channel, 7 shard index, then triples to acknowledge: job id, token,
--       next due in ms of a recurring job ('' to remove the job)
-- Returns {now, next, id, token, attempt, due, payload, cron, id, token, ...}: now is this server's time (ms),
-- next the earliest score left in 'due' or 'run' (ms), or -1 when both are empty; cron is '' for a plain job.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local leaseEnd = now + tonumber(ARGV[2])
local maxAttempts = tonumber(ARGV[3])
local out = {now, -1}
-- Most shards hold no recurring job and no error: skip those look-ups then.
local hasCron = redis.call('EXISTS', KEYS[7]) == 1
local hasErr = redis.call('EXISTS', KEYS[5]) == 1

if #ARGV >= 10 then
  local ids = {}
  for i = 8, #ARGV, 3 do
    ids[#ids + 1] = ARGV[i]
  end
  local envs = redis.call('HMGET', KEYS[3], unpack(ids))
  local done, gone = {}, {}
  for k, id in ipairs(ids) do
    local i = 5 + 3 * k
    local env = envs[k]
    if env and string.match(env, '^%d+|%d+|([^|]*)|') == ARGV[i + 1] then
      done[#done + 1] = id
      if ARGV[i + 2] == '' then
        gone[#gone + 1] = id
      else
        local due = ARGV[i + 2]
        redis.call('HSET', KEYS[3], id, due .. '|0||' .. string.match(env, '^%d+|%d+|[^|]*|(.*)$'))
        redis.call('ZADD', KEYS[1], due, id)
        if redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id then
          redis.call('PUBLISH', ARGV[6], ARGV[7] .. ':' .. due)
        end
      end
    end
  end
  if #done > 0 then
    redis.call('ZREM', KEYS[2], unpack(done))
    if hasErr then
      redis.call('HDEL', KEYS[5], unpack(done))
    end
  end
  if #gone > 0 then
    redis.call('HDEL', KEYS[3], unpack(gone))
    if hasCron then
      redis.call('HDEL', KEYS[7], unpack(gone))
    end
  end
end

local function forget(id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('HDEL', KEYS[5], id)
  redis.call('HDEL', KEYS[7], id)
end

local function bury(id, due, attempts, payload)
  redis.call('ZREM', KEYS[2], id)
  redis.call('HSET', KEYS[3], id, due .. '|' .. attempts .. '||' .. payload)
  redis.call('HSET', KEYS[5], id, 'lease expired on attempt ' .. attempts .. ' of ' .. maxAttempts)
  redis.call('ZADD', KEYS[4], now, id)
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[5]), 'LIMIT', 0, 100)) do
    forget(old)
  end
  local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[4])
  if over > 0 then
    for _, old in ipairs(redis.call('ZRANGE', KEYS[4], 0, over - 1)) do
      forget(old)
    end
  end
end

-- Dead letters past their retention go a few at a time, so that they go even when no job dies any more.
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[5]), 'LIMIT', 0, 10)) do
  forget(old)
end

-- Claims the given ids, taken from the sorted set 'from': new envelopes in one HSET, leases in one ZADD.
local batch = nil
local claimed = 0
local function claim(ids, from)
  if #ids == 0 then
    return
  end
  local envs = redis.call('HMGET', KEYS[3], unpack(ids))
  local crons = hasCron and redis.call('HMGET', KEYS[7], unpack(ids)) or {}
  local fields, leases, taken = {}, {}, {}
  for k, id in ipairs(ids) do
    local env = envs[k]
    if not env then
      -- No envelope (a hand edit): nothing to run.
      redis.call('ZREM', from, id)
    else
      local due, attempts, payload = string.match(env, '^(%d+)|(%d+)|[^|]*|(.*)$')
      attempts = tonumber(attempts)
      -- A recurring job is never buried: its worker sees the attempt past the limit and arms the next occurrence.
      if from == KEYS[2] and attempts >= maxAttempts and not crons[k] then
        bury(id, due, attempts, payload)
      else
        if not batch then
          batch = redis.call('INCR', KEYS[6])
        end
        claimed = claimed + 1
        attempts = attempts + 1
        local token = batch .. '.' .. claimed
        fields[#fields + 1] = id
        fields[#fields + 1] = due .. '|' .. attempts .. '|' .. token .. '|' .. payload
        leases[#leases + 1] = leaseEnd
        leases[#leases + 1] = id
        taken[#taken + 1] = id
        local n = #out
        out[n + 1] = id
        out[n + 2] = token
        out[n + 3] = attempts
        out[n + 4] = due
        out[n + 5] = payload
        out[n + 6] = crons[k] or ''
      end
    end
  end
  if #taken > 0 then
    redis.call('HSET', KEYS[3], unpack(fields))
    if from ~= KEYS[2] then
      redis.call('ZREM', from, unpack(taken))
    end
    redis.call('ZADD', KEYS[2], unpack(leases))
  end
end

claim(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit), KEYS[2])
if claimed < limit then
  claim(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit - claimed), KEYS[1])
end

local headDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
local headRun = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
if headDue and headRun then
  out[2] = math.min(tonumber(headDue), tonumber(headRun))
elseif headDue or headRun then
  out[2] = tonumber(headDue or headRun)
end
return out
