#!lua
-- The readiness probe. It only reads, but declares no flags, so that Redis refuses it up front as it refuses a write:
-- on a read-only replica, with min-replicas-to-write unmet, after a failed disk write, with maxmemory reached. The
-- scripts of the job protocol fail then, at their first write.
-- KEYS: 1 any key of a shard (the node that holds it answers)
-- Returns whether the key exists.
return redis.call('EXISTS', KEYS[1])
