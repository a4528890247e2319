-- Records successful deliveries: removes each job, or re-arms a recurring one at its next occurrence.
-- A job whose fencing token is no longer the given one (cancelled, replaced or claimed again) is left alone.
-- KEYS: 1 due, 2 run, 3 jobs, 4 dead, 5 err, 6 seq, 7 cron (the keys of the shard)
-- ARGV: 1 wake channel, 2 shard index, then triples: job id, token, next due in ms ('' to remove the job)
-- Returns the number of jobs acknowledged.
if #ARGV < 5 then
  return 0
end
local ids = {}
for i = 3, #ARGV, 3 do
  ids[#ids + 1] = ARGV[i]
end
local envs = redis.call('HMGET', KEYS[3], unpack(ids))
local done, gone = {}, {}
for k, id in ipairs(ids) do
  local i = 3 * k
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
        redis.call('PUBLISH', ARGV[1], ARGV[2] .. ':' .. due)
      end
    end
  end
end
if #done > 0 then
  redis.call('ZREM', KEYS[2], unpack(done))
  redis.call('HDEL', KEYS[5], unpack(done))
end
if #gone > 0 then
  redis.call('HDEL', KEYS[3], unpack(gone))
  -- A recurring job whose next occurrence cannot be computed ends here: leave no schedule behind.
  redis.call('HDEL', KEYS[7], unpack(gone))
end
return #done
