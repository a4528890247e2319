-- The functions every script shares: each script is this file's text followed by the operation's own file, whose
-- first line, when it declares the script to Redis ('#!lua flags=allow-oom'), comes first. Those that claim, renew,
-- end, move or drop jobs already stored declare 'allow-oom': they keep the memory level or free it, and Redis runs them
-- with maxmemory reached. Without it, Redis refuses a script at its first write that may grow memory unless another
-- write came first: claims went through and the renewals of their leases did not, so that running jobs were claimed
-- again and ran several times at once. The scripts that store new jobs are refused then.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron, 8 ix, 9 claims (the keys of the shard; 'ix' names the
--       prefix of the shard's index hashes 'ix:0' .. 'ix:255')
--
-- A pending job is stored compactly, since a queue may hold millions of them: one member of 'due' holding its id and
-- payload, scored by the time it runs next, plus a field of one small index hash (id -> that time) that finds the
-- member from the id. Each index hash holds 1/256 of the shard's pending jobs, so that it stays listpack-encoded
-- (a few bytes per field). Running and dead jobs keep an envelope 'due|attempts|token|payload' in 'jobs'.
--
-- A claim (one call of claim.lua) has one lease for all its jobs: its number in 'run', scored by the time the lease
-- ends, and in 'claims' the number of its jobs still running ('<n>') and their ids ('<n>:ids', joined by the byte
-- 0xFF, which no UTF-8 text holds: ids are UTF-8 text, and checking that here would cost every job). A job's token
-- is '<n>.<k>'. Leasing the claim rather than each job spares a sorted-set write per job on the way in and out.
--
-- Member: two bytes of id length (high bit set when due and attempts follow), the id, then either the payload, or
-- 'due|attempts|' and the payload for a job whose due time is not its score or that ran before (a retry, a release).
-- Score: 256 * time in ms + bucket, so that the members found by the time of one id share its index hash and are few.
-- Scores are whole numbers: Redis and Lua read and write those without the costly decimal conversion of fractions.

-- The nine keys of the shard a script works on: its KEYS, or each shard's in turn in a claim of several (claim.lua).
local shardKeys = KEYS
local BUCKETS = 256
-- The envelope of a running or dead job, 'due|attempts|token|payload', read whole or for its token alone
-- (checks over many jobs need no copy of their payloads). Patterns, not functions: every call defines this file's
-- functions again, while constants cost nothing.
local ENVELOPE = '^(%d+)|(%d+)|([^|]*)|(.*)$'
local ENVELOPE_TOKEN = '^%d+|%d+|([^|]*)|'
-- From 2^45 ms on (the year 3084) the score is 256 * time + 8 * (bucket % 32): a double holds whole numbers exactly up
-- to 2^53, and multiples of 8 up to 2^56, past the latest due time's score.
local BUCKET_LIMIT = 35184372088832
-- The latest due time a job may have: 9999-12-31T23:59:59.999Z in ms. Much later ones would overflow the score. A due
-- time or delay must first be digits, 15 at most: a longer number is later anyway, and reads inexactly.
local LATEST_DUE = 253402300799999
-- The most jobs, acknowledgements or leases one call carries for a shard: a command takes them all at once, Lua's
-- unpack() fails at about 8,000 values, and a script that fails halfway keeps what it wrote before. Checked before
-- anything is written.
local MOST_PER_SHARD = 1000
local BAD_DUE =
    'ERR due must be a whole number of ms, not negative, followed by at or in, and reach no later than 253402300799999'
-- The next due time given with a delivery to acknowledge: '' or a due time, checked before anything is written
-- (acknowledge() writes as it goes).
local BAD_NEXT_DUE =
    'ERR next due of an acknowledged job must be empty or a whole number of ms, not negative, no later than 253402300799999'
local ID_SEPARATOR = '\255'
-- A held job due sooner than this is not moved (reschedule.lua): the revocation might reach its worker only after
-- the job started at its old time, and the job would run at both. Measured reaching it: under 10 ms on one busy
-- server, 38 ms across a cluster during failovers.
local REVOKE_MARGIN_MS = 50

-- The text of a whole number. Lua's own conversion prints a float; string.format('%d') is exact but costly, so the
-- numbers below 1000 (attempts, counters, index buckets, claim positions) are put together from digits. Arguments of
-- redis.call are given as text too ('0', not 0): Redis prints a Lua number with the same slow floating-point routine.
-- The other way, on the paths taken once per job, text known to hold digits becomes a number by arithmetic
-- (text + 0): tonumber() reads it twice.
local DIGITS = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9'}
local function decimal(n)
  if n < 10 then
    return DIGITS[n + 1] or string.format('%d', n) -- negative, or a fraction
  end
  if n < 1000 and n % 1 == 0 then
    local ones = n % 10
    local rest = (n - ones) / 10
    if rest < 10 then
      return DIGITS[rest + 1] .. DIGITS[ones + 1]
    end
    local tens = rest % 10
    return DIGITS[(rest - tens) / 10 + 1] .. DIGITS[tens + 1] .. DIGITS[ones + 1]
  end
  return string.format('%d', n)
end

-- This server's time in ms, and the µs past that ms. Two values: as the last argument of a call or the last element
-- of a table constructor, write (serverNow()) to pass the ms alone.
local function serverNow()
  local t = redis.call('TIME')
  local micros = tonumber(t[2])
  return tonumber(t[1]) * 1000 + math.floor(micros / 1000), micros % 1000
end

-- Whether 's' is UTF-8: each sequence of the length its lead byte says, no overlong form, no surrogate, nothing past
-- U+10FFFF.
local function isUtf8(s)
  local i, n = 1, #s
  while i <= n do
    local c = string.byte(s, i)
    if c < 128 then
      i = i + 1
    elseif c >= 194 and c <= 223 then
      local c2 = string.byte(s, i + 1)
      if not c2 or c2 < 128 or c2 > 191 then
        return false
      end
      i = i + 2
    elseif c >= 224 and c <= 239 then
      local c2, c3 = string.byte(s, i + 1, i + 2)
      if not c3 or c2 < 128 or c2 > 191 or c3 < 128 or c3 > 191 or (c == 224 and c2 < 160) or (c == 237 and c2 > 159) then
        return false
      end
      i = i + 3
    elseif c >= 240 and c <= 244 then
      local c2, c3, c4 = string.byte(s, i + 1, i + 3)
      if not c4 or c2 < 128 or c2 > 191 or c3 < 128 or c3 > 191 or c4 < 128 or c4 > 191 or (c == 240 and c2 < 144)
          or (c == 244 and c2 > 143) then
        return false
      end
      i = i + 4
    else
      return false
    end
  end
  return true
end

-- Why a job cannot have the id 'id', or nil, past its length (1 to 512 bytes, checked by each script). Java reads
-- ids as UTF-8 text and refuses blank ones: a job whose id it could not give back byte for byte would never be
-- acknowledged, and one with a blank id could not be found or cancelled from Java. UTF-8 also keeps out the byte 0xFF
-- that joins a claim's ids. Some 2,600 instructions per job (callgrind, a 48-job call): schedule.lua leaves it to
-- the producers that give each job's bucket, as Java does, which check their ids themselves.
local function badId(id)
  if string.byte(id) <= 32 and not string.find(id, '%S') then
    return 'ERR id must not be blank'
  end
  -- Anchored: one pass over an ASCII id, where an unanchored search for a byte >= 128 starts again at every byte.
  if not string.find(id, '^[%z\1-\127]*$') and not isUtf8(id) then
    return 'ERR id must be UTF-8'
  end
  return nil
end

-- Why a call of a script of one job, 'name' of 'arguments' ARGV, is malformed, or nil. Checked before anything is
-- read or written: a script stops at its first error and keeps what it wrote before.
local function badCall(name, arguments)
  if #KEYS ~= 9 or #ARGV ~= arguments then
    return 'ERR ' .. name .. ' takes the nine keys of a shard and ' .. arguments
        .. (arguments == 1 and ' argument' or ' arguments') .. ', was given ' .. #KEYS .. ' and ' .. #ARGV
  end
  return nil
end

-- Why this Redis user may not publish on the wake channel, or nil. Redis keeps what a script wrote before a command it
-- refused, so a script that may publish asks its ACL first, before it writes anything: a schedule whose PUBLISH the
-- ACL refused failed its caller with its job stored, which then ran (a security trial). A producer's script then
-- refuses. A worker's script (an ack that re-arms a recurring job, a retry, a hand-back) writes without the
-- wake-up, passing '' as the channel: refused, it would stop its shard's claims or leave its job to its lease, while the
-- worker learns the shard's next time from its claims and the other instances from their looks at each poll interval;
-- readiness is DOWN meanwhile.
local function publishDenied(channel)
  if redis.acl_check_cmd('PUBLISH', channel, '') then
    return nil
  end
  return 'NOPERM this Redis user may not publish on the wake channel ' .. channel
      .. ' (its ACL needs the channels of the key prefix, &<prefix>:*); nothing was written'
end

local function bucketOf(id)
  return tonumber(string.sub(redis.sha1hex(id), 1, 4), 16) % BUCKETS
end

-- The time a score of 'due' stands for. Scores come as text: the caller turns one into a number once (tonumber of a
-- 15-digit text is a costly strtod).
local function timeOfScore(score)
  return math.floor(score / BUCKETS)
end

-- The bucket of a member of 'due' from its score and the time that stands for: without hashing the id again.
local function bucketOfScored(id, score, time)
  if time >= BUCKET_LIMIT then
    return bucketOf(id)
  end
  return score - time * BUCKETS
end

local indexKeys = {}
local function indexKey(bucket)
  local key = indexKeys[bucket]
  if not key then
    key = shardKeys[8] .. ':' .. decimal(bucket)
    indexKeys[bucket] = key
  end
  return key
end

-- Makes the functions of this file work on the shard whose nine keys start at KEYS[first], in a call of several
-- shards: its keys, and index-key names made from them.
local function useShard(first)
  shardKeys = {unpack(KEYS, first, first + 8)}
  indexKeys = {}
end

-- The score of a job that runs at 'runAt', in decimal. The bucket splits the jobs of one time, so that a look-up by id
-- reads the few that share its score, not all of that time's (such as every job parked at the latest due time).
local function scoreText(runAt, bucket)
  if runAt >= BUCKET_LIMIT then
    return decimal(runAt * BUCKETS + 8 * (bucket % 32))
  end
  return decimal(runAt * BUCKETS + bucket)
end

local function packMember(id, payload, runAt, due, attempts)
  local n = #id
  if attempts == 0 and due == runAt then
    return string.char(math.floor(n / 256), n % 256) .. id .. payload
  end
  return string.char(128 + math.floor(n / 256), n % 256) .. id .. decimal(due) .. '|' .. decimal(attempts) .. '|'
      .. payload
end

-- Returns id, payload, due (a number) and attempts of a member that runs at 'runAt' (a number).
local function unpackMember(member, runAt)
  local high, low = string.byte(member, 1, 2)
  local n = (high % 128) * 256 + low
  local id = string.sub(member, 3, 2 + n)
  if high < 128 then
    return id, string.sub(member, 3 + n), runAt, 0
  end
  local due, attempts, from = string.match(member, '^(%d+)|(%d+)|()', 3 + n)
  return id, string.sub(member, from), tonumber(due), tonumber(attempts)
end

local function idOfMember(member)
  local high, low = string.byte(member, 1, 2)
  return string.sub(member, 3, 2 + (high % 128) * 256 + low)
end

-- The member of 'due' of the job 'id' among those with the score 'score' (text), or nil.
local function memberWithScore(id, score)
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', shardKeys[1], score, score)) do
    if idOfMember(member) == id then
      return member
    end
  end
  return nil
end

-- Returns the 'due' member of a pending job and the time it runs, or nil.
local function findPending(id, bucket)
  bucket = bucket or bucketOf(id)
  local runAt = redis.call('HGET', indexKey(bucket), id)
  if not runAt then
    return nil
  end
  runAt = tonumber(runAt)
  local member = memberWithScore(id, scoreText(runAt, bucket))
  if not member and runAt >= BUCKET_LIMIT then
    -- Stored by an older version, whose score of such a time had no bucket.
    member = memberWithScore(id, decimal(runAt * BUCKETS))
  end
  return member, member and runAt
end

-- Stores a pending job; returns its score (text). 'indexed' says that its index entry is written already.
local function addPending(id, payload, runAt, due, attempts, bucket, indexed)
  bucket = bucket or bucketOf(id)
  local score = scoreText(runAt, bucket)
  redis.call('ZADD', shardKeys[1], score, packMember(id, payload, runAt, due, attempts))
  if not indexed then
    redis.call('HSET', indexKey(bucket), id, decimal(runAt))
  end
  return score
end

local function removePending(id, member)
  redis.call('ZREM', shardKeys[1], member)
  redis.call('HDEL', indexKey(bucketOf(id)), id)
end

-- The claim number of a token ('<n>.<k>'), or nil for the empty token of a dead letter.
local function claimOf(token)
  return string.match(token, '^(%d+)%.')
end

-- Writes the record of a claim: the count of its running jobs and their ids.
local function recordClaim(claim, ids)
  redis.call('HSET', shardKeys[9], claim, decimal(#ids), claim .. ':ids', table.concat(ids, ID_SEPARATOR))
end

-- Deletes a claim's lease and record.
local function forgetClaim(claim)
  redis.call('HDEL', shardKeys[9], claim, claim .. ':ids')
  redis.call('ZREM', shardKeys[2], claim)
end

-- Counts jobs of claims as ended (acknowledged, retried, handed back, cancelled, replaced): 'ended' maps claim numbers
-- to how many of their jobs ended. A claim with no running job left loses its lease and its record.
local function endClaimed(ended)
  for claim, n in pairs(ended) do
    if redis.call('HINCRBY', shardKeys[9], claim, '-' .. decimal(n)) <= 0 then
      forgetClaim(claim)
    end
  end
end

-- Ends the claim of one running job, given its token.
local function endClaimedJob(token)
  local claim = claimOf(token)
  if claim then
    endClaimed({[claim] = 1})
  end
end

-- The ids of a claim ('<n>:ids' in 'claims').
local function splitIds(joined)
  local ids = {}
  for id in string.gmatch(joined, '[^' .. ID_SEPARATOR .. ']+') do
    ids[#ids + 1] = id
  end
  return ids
end

-- Ends a running job: deletes its envelope and takes it off its claim.
local function endRunning(id, token)
  redis.call('HDEL', shardKeys[3], id)
  endClaimedJob(token)
end

-- A claimed job waits in its worker until a handler starts it: until its due time when it was claimed ahead of it (see
-- claim.lua), or for a free handler. When such a job ends, '<shard>:-<token>' on the wake channel tells the worker
-- not to start it; a worker whose handler started it already ignores the message. This revokes a claimed job due
-- REVOKE_MARGIN_MS or more after this server's clock, which no handler can have started and none will before the
-- message arrives (one that reschedule.lua may move), and returns whether it was one.
local function revokeIfHeld(due, token, channel, shard)
  if token ~= '' and tonumber(due) >= serverNow() + REVOKE_MARGIN_MS then
    redis.call('PUBLISH', channel, shard .. ':-' .. token)
    return true
  end
  return false
end

-- Removes what a running or dead job keeps: its envelope, its place in its claim and its dead-letter entry; revokes a
-- running one, which its worker may not have started yet. Returns whether the job had an envelope.
local function dropEnvelope(id, channel, shard)
  local env = redis.call('HGET', shardKeys[3], id)
  if not env then
    return false
  end
  local token = string.match(env, ENVELOPE_TOKEN)
  redis.call('ZREM', shardKeys[4], id)
  if token ~= '' then
    redis.call('PUBLISH', channel, shard .. ':-' .. token)
  end
  endRunning(id, token)
  return true
end

-- Publishes 'shard:time' on the wake channel when a job just added, of that score (text) and time, is the earliest of
-- the shard: no member scores lower. Counting them costs less than reading the head with its score, which Redis prints
-- as a double for Lua to read back. A job that ties with the head wakes the workers too, which is harmless.
local function wakeIfEarliest(score, runAt, channel, shard)
  if channel ~= '' and redis.call('ZCOUNT', shardKeys[1], '-inf', '(' .. score) == 0 then
    redis.call('PUBLISH', channel, shard .. ':' .. decimal(runAt))
  end
end

-- The time of the earliest pending job of the shard, or nil.
local function earliestPending()
  local head = redis.call('ZRANGE', shardKeys[1], '0', '0', 'WITHSCORES')[2]
  return head and timeOfScore(tonumber(head))
end

-- Deletes a dead letter with everything it left.
local function forget(id)
  redis.call('ZREM', shardKeys[4], id)
  redis.call('HDEL', shardKeys[3], id)
  redis.call('HDEL', shardKeys[5], id)
  redis.call('HDEL', shardKeys[7], id)
end

-- Moves a claimed job to the dead letters, then prunes those past the retention and the oldest beyond the share, a
-- hundred at most of each: after the share was lowered, the excess goes over the next deaths rather than in one call
-- that holds Redis up. The caller ends the job's claim.
local function bury(id, envelope, error, now, share, retention)
  redis.call('HSET', shardKeys[3], id, envelope)
  redis.call('HSET', shardKeys[5], id, error)
  redis.call('ZADD', shardKeys[4], decimal(now), id)
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', shardKeys[4], '-inf', decimal(now - retention), 'LIMIT', '0', '100')) do
    forget(old)
  end
  local over = math.min(redis.call('ZCARD', shardKeys[4]) - share, 100)
  if over > 0 then
    for _, old in ipairs(redis.call('ZRANGE', shardKeys[4], '0', decimal(over - 1))) do
      forget(old)
    end
  end
end

-- Records successful deliveries given as triples in ARGV[first] .. ARGV[last]: job id, token, next due in ms of a
-- recurring job ('' to remove the job). A job whose token is no longer the given one is left alone. Returns how many
-- matched.
local function acknowledge(first, last, channel, shard)
  if last < first + 2 then
    return 0
  end
  local ids = {}
  for i = first, last, 3 do
    ids[#ids + 1] = ARGV[i]
  end
  local envs = redis.call('HMGET', shardKeys[3], unpack(ids))
  local done, gone, ended, seen = {}, {}, {}, {}
  -- Acks come mostly in runs of one claim: its number is read from a token once for the run.
  local claim, prefix = nil, nil
  for k, id in ipairs(ids) do
    local i = first + 3 * (k - 1)
    local env = envs[k]
    local token = ARGV[i + 1]
    -- A dead letter's token is empty: no ack matches it. An id given twice counts once for its claim.
    if env and token ~= '' and not seen[id] and string.match(env, ENVELOPE_TOKEN) == token then
      seen[id] = true
      done[#done + 1] = id
      if not prefix or string.find(token, prefix, 1, true) ~= 1 then
        claim = claimOf(token)
        prefix = claim and claim .. '.'
      end
      if claim then
        ended[claim] = (ended[claim] or 0) + 1
      end
      if ARGV[i + 2] == '' then
        gone[#gone + 1] = id
      else
        local nextDue = tonumber(ARGV[i + 2])
        wakeIfEarliest(addPending(id, select(4, string.match(env, ENVELOPE)), nextDue, nextDue, 0), nextDue, channel,
            shard)
      end
    end
  end
  if #done > 0 then
    redis.call('HDEL', shardKeys[3], unpack(done))
    endClaimed(ended)
    if redis.call('EXISTS', shardKeys[5]) == 1 then
      redis.call('HDEL', shardKeys[5], unpack(done))
    end
  end
  -- A recurring job whose next occurrence cannot be computed ends here: leave no schedule behind.
  if #gone > 0 and redis.call('EXISTS', shardKeys[7]) == 1 then
    redis.call('HDEL', shardKeys[7], unpack(gone))
  end
  return #done
end

