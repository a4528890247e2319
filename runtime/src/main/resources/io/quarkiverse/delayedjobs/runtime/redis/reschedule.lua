-- Moves the due time of a pending job. Running and dead jobs are not moved.
-- KEYS: the nine keys of the job's shard (see common.lua)
-- ARGV: 1 job id, 2 due time in ms since the epoch ('at') or delay in ms ('in'), 3 'at' | 'in',
--       4 wake channel, 5 shard index
-- Returns 1 when the job was moved, 0 when no pending job had that id.
local id = ARGV[1]
if not string.match(ARGV[2], '^%d+$') or (ARGV[3] ~= 'at' and ARGV[3] ~= 'in') then
  return redis.error_reply('ERR due must be a whole number of ms, not negative, followed by at or in')
end
local member, runAt = findPending(id)
if not member then
  return 0
end
local due = tonumber(ARGV[2])
if ARGV[3] == 'in' then
  due = serverNow() + due
end
local _, payload, _, attempts = unpackMember(member, runAt)
removePending(id, member)
wakeIfEarliest(addPending(id, payload, due, due, attempts), due, ARGV[4], ARGV[5])
return 1
