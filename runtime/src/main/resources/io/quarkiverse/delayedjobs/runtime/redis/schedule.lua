-- Stores jobs, each applying its conflict policy when a pending, running or dead job has the same id. One call may carry
-- many jobs, of one shard or, when one server holds them all, of several shards of a queue, handled in order: a
-- producer sending many at once pays the script call once.
-- KEYS: the nine keys of the shard (see common.lua); or the nine keys of each of several shards, shard after shard
-- ARGV: with one shard: 1 wake channel, 2 shard index, then for each job six values: job id, payload (JSON text), due
--       time in ms since the epoch ('at') or delay in ms ('in'), 'at' | 'in' (a delay is measured from this server's
--       clock), KEEP | REPLACE | KEEP_EARLIER | KEEP_LATER, the id's bucket as the producer computed it ('' to compute
--       it here, at the cost of a sha1hex: the costliest step of storing a job; and to have the id checked, see
--       badId in common.lua).
--       With several shards: 1 wake channel, then for each shard, in the order of its keys: shard index, the number n
--       of its jobs, then 6n values as above.
-- Returns {result, due, result, due, ...}, one pair per job in order: result is CREATED, REPLACED or KEPT; due is the
-- due time the stored job has (ms); then this server's clock as the call read it (µs since the epoch): the producer
-- bounds the Redis clock by it, and sends its next delays as due times ('at').
-- The shards' parts of ARGV, three values each: shard index, first value of the first job, last value of the last job.
local TOO_MANY = 'ERR schedule takes at most 1000 jobs per shard in one call' -- MOST_PER_SHARD, as a constant
local parts = nil
if #KEYS == 9 then
  if #ARGV < 8 or (#ARGV - 2) % 6 ~= 0 then
    return redis.error_reply('ERR schedule takes the wake channel, the shard index, then six values per job')
  end
  if #ARGV - 2 > 6 * MOST_PER_SHARD then
    return redis.error_reply(TOO_MANY)
  end
  parts = {ARGV[2], 3, #ARGV}
else
  if #KEYS == 0 or #KEYS % 9 ~= 0 then
    return redis.error_reply('ERR schedule takes nine keys per shard')
  end
  local BAD_PARTS = 'ERR schedule of several shards takes the wake channel, then for each shard its index, the '
      .. 'number of its jobs and six values per job'
  local at = 2
  parts = {}
  for _ = 1, #KEYS, 9 do
    local n = tonumber(ARGV[at + 1])
    if not n or n < 1 or n % 1 ~= 0 or at + 1 + 6 * n > #ARGV then
      return redis.error_reply(BAD_PARTS)
    end
    if n > MOST_PER_SHARD then
      return redis.error_reply(TOO_MANY)
    end
    local p = #parts
    parts[p + 1], parts[p + 2], parts[p + 3] = ARGV[at], at + 2, at + 1 + 6 * n
    at = at + 2 + 6 * n
  end
  if at ~= #ARGV + 1 then
    return redis.error_reply(BAD_PARTS)
  end
end
local denied = publishDenied(ARGV[1])
if denied then
  return redis.error_reply(denied)
end
-- Per job (by the index of its id in ARGV): its due time in ms, and the bucket the producer gave.
local dues, buckets = {}, {}
-- This server's time in ms and the µs past it, read once, before the work: for the delays ('in') of the call, and for
-- the answer, where the earlier the reading, the tighter the producer's bound of this clock.
local now, nowMicros = serverNow()
for p = 1, #parts, 3 do
  for i = parts[p + 1], parts[p + 2], 6 do
    if #ARGV[i] == 0 or #ARGV[i] > 512 then
      return redis.error_reply('ERR id must be 1 to 512 bytes')
    end
    if ARGV[i + 5] == '' then
      local bad = badId(ARGV[i])
      if bad then
        return redis.error_reply(bad)
      end
    end
    local text, kind = ARGV[i + 2], ARGV[i + 3]
    if #text > 15 or not string.match(text, '^%d+$') or (kind ~= 'at' and kind ~= 'in') then
      return redis.error_reply(BAD_DUE)
    end
    local due = text + 0
    if kind == 'in' then
      -- A delay ends once it has passed: the ms begun counts as a whole one. A delay of zero is due now.
      due = (due > 0 and nowMicros > 0) and now + due + 1 or now + due
    end
    if due > LATEST_DUE then
      return redis.error_reply(BAD_DUE)
    end
    dues[i] = due
    local policy = ARGV[i + 4]
    if policy ~= 'KEEP' and policy ~= 'REPLACE' and policy ~= 'KEEP_EARLIER' and policy ~= 'KEEP_LATER' then
      return redis.error_reply('ERR policy must be KEEP, REPLACE, KEEP_EARLIER or KEEP_LATER')
    end
    if ARGV[i + 5] ~= '' then
      local bucket = tonumber(ARGV[i + 5])
      if not bucket or bucket < 0 or bucket >= BUCKETS or bucket % 1 ~= 0 then
        return redis.error_reply('ERR bucket must be empty or a whole number from 0 to 255')
      end
      buckets[i] = bucket
    end
  end
end
local out = {}

-- Stores the jobs of each shard in turn (a loop, not a function: defining one costs every call).
for p = 1, #parts, 3 do
  local shard, first, last = parts[p], parts[p + 1], parts[p + 2]
  if p > 1 then
    useShard(3 * p - 2) -- the part's nine keys: part (p + 2) / 3 of KEYS
  end
  -- One wake-up for the call, when the earliest job it adds is the shard's earliest once the jobs are in.
  local single = last == first + 5
  -- The lowest score added: the earliest due time, then the lowest bucket (a score is 256 * due + bucket).
  local earliestAdded, earliestBucket, earliestScore = nil, nil, nil
  -- Only running and dead jobs have envelopes, and this script never adds one: a call of several jobs looks for them
  -- only when there are some. A call of one job looks its id up at once, which costs what the check would.
  local hasEnvelopes = single or redis.call('EXISTS', shardKeys[3]) == 1
  -- New members of 'due' go in one ZADD for the call: one command instead of one per job. Pending ones are written
  -- before anything reads 'due' (the same id twice in one call).
  -- (No function for that: every call of the script would define it again.) A call of one job stores it with
  -- addPending, as the other scripts do.
  local toAdd = {}
  for i = first, last, 6 do
    local id, policy = ARGV[i], ARGV[i + 4]
    local due, dueText = dues[i], ARGV[i + 2]
    if ARGV[i + 3] == 'in' then
      dueText = decimal(due)
    end
    local result = 'CREATED'
    local bucket = buckets[i] or bucketOf(id)
    -- A running or dead job has an envelope, and conflicts as a pending one does, by the due time it was scheduled for.
    local env = hasEnvelopes and redis.call('HGET', shardKeys[3], id)
    local member, runAt = nil, nil
    local oldDue = nil
    -- For a new id, HSETNX both finds that no pending job has it and writes its index entry.
    local indexed = not env and redis.call('HSETNX', indexKey(bucket), id, dueText) == 1
    if env then
      oldDue = tonumber((string.match(env, ENVELOPE)))
    elseif not indexed then
      if toAdd[1] then
        redis.call('ZADD', shardKeys[1], unpack(toAdd))
        toAdd = {}
      end
      member, runAt = findPending(id, bucket)
      if member then
        local _, _, d = unpackMember(member, runAt)
        oldDue = d
      end
    end
    if oldDue then
      if policy == 'KEEP' or (policy == 'KEEP_EARLIER' and oldDue <= due)
          or (policy == 'KEEP_LATER' and oldDue >= due) then
        result = 'KEPT'
        due = oldDue
      else
        result = 'REPLACED'
      end
    end
    if result ~= 'KEPT' then
      if env then
        dropEnvelope(id, ARGV[1], shard)
      elseif member then
        redis.call('ZREM', shardKeys[1], member)
      end
      if env or member then
        redis.call('HDEL', shardKeys[5], id)
        redis.call('HDEL', shardKeys[7], id)
      end
      if single then
        wakeIfEarliest(addPending(id, ARGV[i + 1], due, due, 0, bucket, indexed), due, ARGV[1], shard)
      else
        local n = #toAdd
        toAdd[n + 1] = scoreText(due, bucket)
        toAdd[n + 2] = packMember(id, ARGV[i + 1], due, due, 0)
        if not indexed then
          redis.call('HSET', indexKey(bucket), id, decimal(due))
        end
        if not earliestAdded or due < earliestAdded or (due == earliestAdded and bucket < earliestBucket) then
          earliestAdded, earliestBucket, earliestScore = due, bucket, toAdd[n + 1]
        end
      end
    end
    out[#out + 1] = result
    out[#out + 1] = due
  end
  if toAdd[1] then
    redis.call('ZADD', shardKeys[1], unpack(toAdd))
  end
  if earliestAdded then
    wakeIfEarliest(earliestScore, earliestAdded, ARGV[1], shard)
  end
end
out[#out + 1] = now * 1000 + nowMicros
return out
