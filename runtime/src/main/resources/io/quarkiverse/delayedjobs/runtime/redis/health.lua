#!lua
-- The readiness probe. It only reads, but declares no flags, so that Redis refuses it up front as it refuses a write:
-- on a read-only replica, with min-replicas-to-write unmet, after a failed disk write, with maxmemory reached. The
-- scripts of the job protocol fail then, at their first write.
-- It also asks the ACL (redis.acl_check_cmd) whether this user may run the commands of the job scripts on this key,
-- publish on the queue's wake channel and, for an instance that runs workers, subscribe to it, and answers an error
-- naming what it may not: a user without the channels has its schedules refused, and its workers learn of new jobs
-- only by looking at their shards.
-- KEYS: 1 any key of a shard (the node that holds it answers)
-- ARGV: 1 the queue's wake channel, 2 '1' when the instance subscribes to it (runs workers), else ''; both optional:
--       without them (a probe written before they were added) the channels are not asked about
-- Returns whether the key exists.
local key = KEYS[1]
local checks = {
  {'HGET', key, 'f'}, {'HMGET', key, 'f'}, {'HSET', key, 'f', 'v'}, {'HSETNX', key, 'f', 'v'}, {'HDEL', key, 'f'},
  {'HLEN', key}, {'HINCRBY', key, 'f', '1'}, {'INCR', key}, {'INCRBY', key, '1'}, {'EXISTS', key},
  {'ZADD', key, '1', 'm'}, {'ZREM', key, 'm'}, {'ZCARD', key}, {'ZCOUNT', key, '0', '1'}, {'ZSCORE', key, 'm'},
  {'ZRANGE', key, '0', '1'}, {'ZRANGEBYSCORE', key, '0', '1'}, {'ZREVRANGE', key, '0', '1'},
  {'ZREMRANGEBYRANK', key, '0', '1'}, {'GET', key}, {'SET', key, 'v'}, {'TIME'}
}
if ARGV[1] then
  checks[#checks + 1] = {'PUBLISH', ARGV[1], 'm'}
end
if ARGV[1] and ARGV[2] == '1' then
  checks[#checks + 1] = {'SUBSCRIBE', ARGV[1]}
end
local denied = {}
for _, c in ipairs(checks) do
  if not redis.acl_check_cmd(unpack(c)) then
    denied[#denied + 1] = c[2] and (c[1] .. ' ' .. c[2]) or c[1]
  end
end
if #denied > 0 then
  return redis.error_reply('NOPERM the Redis user of the delayed jobs may not run: ' .. table.concat(denied, ', '))
end
return redis.call('EXISTS', KEYS[1])
