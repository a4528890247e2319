#!/usr/bin/env python3
"""Counts the instructions redis-server executes for the extension's scripts, per job.

Timings on a shared machine swing by tens of percent from one run to the next; instruction counts do not. This runs
redis-server under valgrind's callgrind (slow: about 50 times), replays script calls the way the engine makes them,
with the counters zeroed before and dumped after the measured calls, and prints instructions per job. Compare two
versions of the scripts by running it on each checkout.

  integration-tests/benchmark/instructions.py schedule [--jobs 20000] [--per-call 5] [--together] [--running]
  integration-tests/benchmark/instructions.py drain [--jobs 5000] [--per-call 32] [--jobs-per-ms 1]
                                              [--shards-per-call 8]

schedule: new jobs, each with its own id, due over 60 s, spread over 8 shards, --per-call jobs of a shard per schedule
call; with --together, --per-call jobs of any shards per call (a part per shard), as a linger sends them to one server;
with --running, each shard has a running job, as in W3 (whose workers hold the jobs claimed ahead), so that the
script looks the ids up among the running jobs too.
drain: loads the jobs due in the past (unmeasured), --jobs-per-ms of them due at each millisecond (W2 has 1,000), then
claims --per-call jobs of each shard at a time, each claim carrying the acknowledgements of the previous one of its
shard, until all ran: the claims of --shards-per-call shards in one call (8, all of them, as the engine claims a round
on one Redis server; 1 as on a cluster).

Needs valgrind (callgrind_control), redis-server and python3.
"""
import argparse
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zlib

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'runtime', 'src', 'main', 'resources',
                       'io', 'quarkiverse', 'delayedjobs', 'runtime', 'redis')
KEY_NAMES = ['due', 'run', 'jobs', 'dead', 'err', 'seq', 'cron', 'ix', 'claims']
SHARDS = 8
# The benchmark's payload: 114 bytes of JSON.
PAYLOAD = ('{"seq":12345,"customer":"customer-0012345","kind":"help-email","due":1795527156511,'
           '"note":"lorem ipsum dolor sit"}')


class Redis:
    """A bare RESP client: enough for pipelined script calls."""

    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.file = self.sock.makefile('rb')

    @staticmethod
    def encode(*args):
        parts = [b'*%d\r\n' % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b'$%d\r\n%s\r\n' % (len(a), a))
        return b''.join(parts)

    def reply(self):
        line = self.file.readline()
        kind, rest = line[:1], line[1:-2]
        if kind == b'-':
            raise RuntimeError(rest.decode())
        if kind in (b'+', b':'):
            return rest
        if kind == b'$':
            n = int(rest)
            return None if n < 0 else self.file.read(n + 2)[:-2]
        n = int(rest)
        return None if n < 0 else [self.reply() for _ in range(n)]

    def call(self, *args):
        self.sock.sendall(self.encode(*args))
        return self.reply()

    def pipeline(self, commands, chunk=100):
        for k in range(0, len(commands), chunk):
            part = commands[k:k + chunk]
            self.sock.sendall(b''.join(part))
            for _ in part:
                self.reply()


def script(name):
    """common.lua and the operation's file, as the extension puts them together: a first line '#!...' stays first."""
    with open(os.path.join(SCRIPTS, 'common.lua'), 'rb') as common, open(os.path.join(SCRIPTS, name), 'rb') as own:
        text = own.read()
        first = text.index(b'\n') + 1 if text.startswith(b'#!') else 0
        return text[:first] + common.read() + text[first:]


def keys(shard):
    return ['dj:{q:%d}:%s' % (shard, n) for n in KEY_NAMES]


def shard_of(job_id):
    return zlib.crc32(job_id.encode()) % SHARDS


def bucket_of(job_id):
    """The id's index bucket, as the Java producer passes it: the second byte of the SHA-1 of its bytes."""
    return hashlib.sha1(job_id.encode()).digest()[1]


def schedule_calls(redis, jobs, per_call, due_of, together=False):
    """Schedule calls of per_call jobs of one shard each; together: of the next per_call jobs, whatever their shards,
    each shard's in a part of its own, as the engine sends the jobs waiting for a linger to one Redis server."""
    sha = redis.call('SCRIPT', 'LOAD', script('schedule.lua')).decode()
    calls, waiting = [], {s: [] for s in range(SHARDS)}

    def job_args(i):
        return ['j-%d' % i, PAYLOAD, due_of(i), 'at', 'KEEP', bucket_of('j-%d' % i)]

    def flush(shard):
        args = keys(shard) + ['dj:{q}:wake', shard]
        for i in waiting[shard]:
            args += job_args(i)
        calls.append(Redis.encode('EVALSHA', sha, len(KEY_NAMES), *args))
        waiting[shard] = []

    def flush_together():
        shards = [s for s in range(SHARDS) if waiting[s]]
        if len(shards) == 1:
            flush(shards[0])
            return
        call_keys, args = [], ['dj:{q}:wake']
        for shard in shards:
            call_keys += keys(shard)
            args += [shard, len(waiting[shard])]
            for i in waiting[shard]:
                args += job_args(i)
            waiting[shard] = []
        calls.append(Redis.encode('EVALSHA', sha, len(call_keys), *(call_keys + args)))

    for i in range(jobs):
        shard = shard_of('j-%d' % i)
        waiting[shard].append(i)
        if together and (i + 1) % per_call == 0:
            flush_together()
        elif not together and len(waiting[shard]) == per_call:
            flush(shard)
    if together and any(waiting.values()):
        flush_together()
    for shard in range(SHARDS):
        if waiting[shard]:
            flush(shard)
    return calls


def drain(redis, jobs, per_call, shards_per_call):
    """Claims per_call jobs a shard at a time until all ran, shards_per_call shards to a call; returns how many ran."""
    sha = redis.call('SCRIPT', 'LOAD', script('claim.lua')).decode()

    def claim(shards, most, acks):
        # ARGV: lease ms, max attempts, most dead letters, retention ms, wake channel; then per shard: shard, most jobs,
        # claim-ahead ms, most jobs claimed ahead, the number of acks, acks
        call_keys, args = [], [30000, 3, 100, 1000000, 'dj:{q}:wake']
        for shard in shards:
            call_keys += keys(shard)
            args += [shard, most, 0, 0, len(acks[shard])]
            for job_id, token in acks[shard]:
                args += [job_id, token, '']
        out = redis.call('EVALSHA', sha, len(call_keys), *(call_keys + args))
        # Per shard: next, whether that is to be claimed only once due, count, six values per job, then the number
        # buried and four values each.
        at = 1
        for shard in shards:
            count = int(out[at + 2])
            acks[shard] = [(out[k], out[k + 1]) for k in range(at + 3, at + 3 + 6 * count, 6)]
            at += 3 + 6 * count
            at += 1 + 4 * int(out[at])

    acks = {s: [] for s in range(SHARDS)}
    rounds = [list(range(s, min(s + shards_per_call, SHARDS))) for s in range(0, SHARDS, shards_per_call)]
    ran, idle = 0, 0
    while ran < jobs and idle < len(rounds):
        for shards in rounds:
            claim(shards, per_call, acks)
            claimed = sum(len(acks[s]) for s in shards)
            ran += claimed
            idle = idle + 1 if not claimed else 0
    for shards in rounds:
        claim(shards, 0, acks)
    return ran


def connect(port, tries, pause):
    """A client of the redis-server starting on port, once it answers PING; None if it did not in time."""
    for _ in range(tries):
        try:
            redis = Redis(port)
            redis.call('PING')
            return redis
        except OSError:
            time.sleep(pause)
    return None


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('replay', choices=['schedule', 'drain'])
    parser.add_argument('--jobs', type=int)
    parser.add_argument('--per-call', type=int)
    parser.add_argument('--jobs-per-ms', type=int, default=1)
    parser.add_argument('--shards-per-call', type=int, default=SHARDS)
    parser.add_argument('--together', action='store_true')
    parser.add_argument('--running', action='store_true')
    parser.add_argument('--keep', metavar='FILE', help='copy the callgrind dump of the measured calls there, for '
                        'callgrind_annotate')
    options = parser.parse_args()
    jobs = options.jobs or (20000 if options.replay == 'schedule' else 5000)
    per_call = options.per_call or (5 if options.replay == 'schedule' else 32)
    for tool in ('valgrind', 'callgrind_control', 'redis-server'):
        if not shutil.which(tool):
            sys.exit('%s is missing (Debian: apt-get install valgrind redis-server)' % tool)

    work = tempfile.mkdtemp(prefix='instructions.')
    port = free_port()
    server = subprocess.Popen(['valgrind', '--tool=callgrind', '--callgrind-out-file=%s/callgrind.%%p' % work,
                               'redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '',
                               '--appendonly', 'no', '--dir', work],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        redis = connect(port, 300, 0.1)
        if redis is None:
            sys.exit('redis-server under valgrind did not start on port %d' % port)

        def counted(work_to_count):
            subprocess.run(['callgrind_control', '-z', str(server.pid)], check=True, capture_output=True)
            work_to_count()
            subprocess.run(['callgrind_control', '-d', str(server.pid)], check=True, capture_output=True)

        base = 1795527156511
        if options.replay == 'schedule':
            if options.running:
                for shard in range(SHARDS):
                    redis.call('HSET', keys(shard)[2], 'running-%d' % shard, '1000|1|1.1|' + PAYLOAD)
            calls = schedule_calls(redis, jobs, per_call, lambda i: base + 60000 * i // jobs, options.together)
            counted(lambda: redis.pipeline(calls))
        else:
            # Due in the past, so that every claim finds jobs.
            redis.pipeline(schedule_calls(redis, jobs, 32, lambda i: 1000 + i // options.jobs_per_ms))
            ran = []
            counted(lambda: ran.append(drain(redis, jobs, per_call, options.shards_per_call)))
            if ran[0] != jobs:
                sys.exit('only %d of %d jobs ran' % (ran[0], jobs))
    finally:
        server.terminate()
        server.wait(60)
    dumps = [f for f in os.listdir(work) if f.startswith('callgrind.') and f.endswith('.1')]
    with open(os.path.join(work, dumps[0])) as dump:
        total = next(int(line.split()[1]) for line in dump if line.startswith('summary:'))
    if options.keep:
        shutil.copyfile(os.path.join(work, dumps[0]), options.keep)
    shutil.rmtree(work, ignore_errors=True)
    if options.replay == 'drain':
        print('drain, %d jobs, %d per shard and claim, %d shards per call: %d instructions per job'
              % (jobs, per_call, options.shards_per_call, total // jobs))
    else:
        print('schedule, %d jobs, %d per call%s%s: %d instructions per job'
              % (jobs, per_call, ' (shards together)' if options.together else '',
                 ', a running job in each shard' if options.running else '', total // jobs))


if __name__ == '__main__':
    main()
