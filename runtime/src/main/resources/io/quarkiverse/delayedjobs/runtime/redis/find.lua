-- Reads one job.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the job's shard)
-- ARGV: 1 job id
-- Returns nil when no job has that id, else {state, envelope, last error or nil, cron or nil, score} where state is
-- PENDING, RUNNING or DEAD and score is when a pending job runs next (a retry's time), the lease end of a running one,
-- the time a dead one died (ms).
local id = ARGV[1]
local env = redis.call('HGET', KEYS[3], id)
if not env then
  return false
end
local state, score = 'PENDING', redis.call('ZSCORE', KEYS[1], id)
if not score then
  score = redis.call('ZSCORE', KEYS[2], id)
  state = 'RUNNING'
  if not score then
    score = redis.call('ZSCORE', KEYS[4], id)
    state = 'DEAD'
  end
end
return {state, env, redis.call('HGET', KEYS[5], id), redis.call('HGET', KEYS[7], id), tonumber(score)}
