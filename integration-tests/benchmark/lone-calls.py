#!/usr/bin/env python3
"""Measures the Redis CPU that calls cost when each arrives alone, as W3's schedule calls do.

W3 schedules 1,000 jobs a second, one call each: between two calls Redis goes idle, so every call pays for waking it
as well as for its own work. This sends calls one at a time, paced like W3 (send, wait for the answer, sleep until
the next slot), to a fresh redis-server, and divides the server's user + sys CPU (INFO cpu) by the calls or jobs:

  PING                      the floor of any command that arrives alone
  EVALSHA 'return 1'        a script that does nothing, given the nine keys and eight arguments of a schedule
  schedule, 1 job per call  schedule.lua storing a new job due in 2 s, as W3 does by default
  schedule, N jobs per call the same jobs gathered N to a call (--per-call), N times fewer calls, per job

  integration-tests/benchmark/lone-calls.py [--calls 8000] [--rate 1000] [--per-call 8] [--repeats 3]

Needs redis-server and python3. Timings: the machine's noise shows in the spread of the repeats.
"""
import argparse
import statistics
import subprocess
import sys
import time

from instructions import KEY_NAMES, PAYLOAD, Redis, bucket_of, connect, free_port, keys, script, shard_of


def cpu_seconds(redis):
    info = redis.call('INFO', 'cpu').decode()
    fields = dict(line.split(':', 1) for line in info.split('\r\n') if ':' in line)
    return float(fields['used_cpu_user']) + float(fields['used_cpu_sys'])


def paced(redis, messages, rate):
    """Sends each message alone at its slot of `rate` per second and waits for its answer; returns Redis CPU µs."""
    before = cpu_seconds(redis)
    start = time.perf_counter()
    for i, message in enumerate(messages):
        wait = start + i / rate - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        redis.sock.sendall(message)
        redis.reply()
    return (cpu_seconds(redis) - before) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--calls', type=int, default=8000, help='calls of each kind per repeat')
    parser.add_argument('--rate', type=float, default=1000, help='calls (or, gathered, jobs) per second')
    parser.add_argument('--per-call', type=int, default=8, help='jobs per call of the gathered schedule')
    parser.add_argument('--repeats', type=int, default=3)
    options = parser.parse_args()

    port = free_port()
    server = subprocess.Popen(['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '',
                               '--appendonly', 'no'], stdout=subprocess.DEVNULL)
    try:
        redis = connect(port, 100, 0.05)
        if redis is None:
            sys.exit('redis-server did not start on port %d' % port)
        nothing = redis.call('SCRIPT', 'LOAD', 'return 1').decode()
        schedule = redis.call('SCRIPT', 'LOAD', script('schedule.lua')).decode()
        next_id = [0]

        def schedule_call(jobs):
            """One schedule call of `jobs` new jobs of one shard, each due 2 s after it arrives."""
            ids = []
            while len(ids) < jobs:
                job_id = 'lone-%d' % next_id[0]
                next_id[0] += 1
                if shard_of(job_id) == 0:
                    ids.append(job_id)
            args = keys(0) + ['dj:{q}:wake', 0]
            for job_id in ids:
                args += [job_id, PAYLOAD, 2000, 'in', 'KEEP', bucket_of(job_id)]
            return Redis.encode('EVALSHA', schedule, len(KEY_NAMES), *args)

        one_job_args = keys(0) + ['dj:{q}:wake', 0, 'j-1', PAYLOAD, 2000, 'in', 'KEEP', 17]
        n, k = options.calls, options.per_call
        # (name, messages for one repeat, calls per second, jobs the CPU is divided by)
        cases = [
            ('PING', lambda: [Redis.encode('PING')] * n, options.rate, n),
            ("EVALSHA 'return 1'", lambda: [Redis.encode('EVALSHA', nothing, len(KEY_NAMES), *one_job_args)] * n,
             options.rate, n),
            ('schedule, 1 job per call', lambda: [schedule_call(1) for _ in range(n)], options.rate, n),
            ('schedule, %d jobs per call' % k, lambda: [schedule_call(k) for _ in range(n // k)], options.rate / k,
             n // k * k),
        ]
        print('Redis CPU per call arriving alone, %d per case and repeat at %g jobs/s (median, then each repeat):'
              % (n, options.rate))
        for name, messages, rate, jobs in cases:
            figures = []
            for _ in range(options.repeats):
                redis.call('FLUSHALL')
                figures.append(paced(redis, messages(), rate) / jobs)
            unit = 'per job' if 'jobs per call' in name else 'per call'
            print('  %-28s %6.1f µs %s  (%s)' % (name, statistics.median(figures), unit,
                                                  ' / '.join('%.1f' % f for f in figures)))
    finally:
        server.terminate()
        server.wait(60)


if __name__ == '__main__':
    main()
