#!lua flags=allow-oom
-- Runs with maxmemory reached (see common.lua).
-- Records successful deliveries: removes each job, or re-arms a recurring one at its next occurrence.
-- A job whose fencing token is no longer the given one (cancelled, replaced or claimed again) is left alone.
-- KEYS: the nine keys of the shard (see common.lua)
-- ARGV: 1 wake channel, 2 shard index, then triples: job id, token, next due in ms ('' to remove the job)
-- Returns the number of jobs acknowledged.
if #ARGV - 2 > 3 * MOST_PER_SHARD then
  return redis.error_reply('ERR ack takes at most ' .. MOST_PER_SHARD .. ' deliveries per call')
end
if (#ARGV - 2) % 3 ~= 0 then
  return redis.error_reply('ERR deliveries to acknowledge come as triples: job id, token, next due')
end
-- Checked here and in claim.lua rather than by a function of common.lua, which every call of every script would define.
local rearms = false
for i = 5, #ARGV, 3 do
  local nextDue = ARGV[i]
  if nextDue ~= '' then
    if #nextDue > 15 or not string.match(nextDue, '^%d+$') or nextDue + 0 > LATEST_DUE then
      return redis.error_reply(BAD_NEXT_DUE)
    end
    rearms = true
  end
end
-- Only a re-armed recurring job may publish, and only when the ACL lets it (see publishDenied in common.lua).
return acknowledge(3, #ARGV, (rearms and publishDenied(ARGV[1])) and '' or ARGV[1], ARGV[2])
