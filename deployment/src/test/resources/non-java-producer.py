#!/usr/bin/env python3
"""A producer of delayed jobs that is not Java and uses no Redis library.

It speaks RESP over a plain socket and does what the Redis protocol page of the docs (protocol.adoc) tells a producer
in another language to do: read the queue's shard count, hash the job id to its shard with CRC-32, build the shard's
nine keys, and run each script (common.lua followed by the operation's file, whose first line comes first when it
starts with #!) by its SHA-1 with EVALSHA, sending the
script text with EVAL when Redis answers NOSCRIPT. NonJavaProducerTest runs it against the queue of a Quarkus
application.

Usage: non-java-producer.py HOST PORT KEY_PREFIX SCRIPTS_DIR

It schedules help-email:42, due now, and help-email:43, due in two seconds (giving its index bucket, which a producer
may leave to Redis), then cancels help-email:43. It exits with status 1 and says why when a reply is not the
documented one; otherwise it prints "name: value" lines for the test.
"""

import hashlib
import json
import os
import socket
import sys
import zlib

QUEUE = "help-email"
SHARD_KEY_NAMES = ("due", "run", "jobs", "dead", "err", "seq", "cron", "ix", "claims")
DEFAULT_SHARDS = 8


class RedisError(Exception):
    """An error reply of Redis, such as NOSCRIPT."""


class ProtocolMismatch(Exception):
    """A reply that is not the one the docs promise."""


class Connection:
    """One connection speaking RESP2: commands go out as arrays of bulk strings."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.reader = self.sock.makefile("rb")

    def call(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode("utf-8")
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self.sock.sendall(b"".join(parts))
        return self.reply()

    def reply(self):
        line = self.reader.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("Redis closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode("utf-8")
        if kind == b"-":
            raise RedisError(rest.decode("utf-8"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            size = int(rest)
            if size < 0:
                return None
            data = self.reader.read(size + 2)
            return data[:-2].decode("utf-8")
        if kind == b"*":
            size = int(rest)
            if size < 0:
                return None
            return [self.reply() for _ in range(size)]
        raise ConnectionError("unexpected reply %r" % line)

    def close(self):
        self.reader.close()
        self.sock.close()


class Script:
    """The bytes of common.lua followed by those of the operation's file, but for the file's first line when it starts
    with #! (it declares the script to Redis), which comes first: its SHA-1 is the one the Java side runs it by."""

    def __init__(self, directory, name):
        with open(os.path.join(directory, "common.lua"), "rb") as f:
            common = f.read()
        with open(os.path.join(directory, name), "rb") as f:
            own = f.read()
        first = own.index(b"\n") + 1 if own.startswith(b"#!") else 0
        self.text = own[:first] + common + own[first:]
        self.name = name
        self.sha = hashlib.sha1(self.text).hexdigest()


class Queue:
    """The keys and scripts of one queue, as protocol.adoc describes them."""

    def __init__(self, redis, prefix, name, scripts_dir):
        self.redis = redis
        self.prefix = prefix
        self.name = name
        self.wake = "%s:{%s}:wake" % (prefix, name)
        self.scripts = {n: Script(scripts_dir, n + ".lua") for n in ("schedule", "cancel", "find")}
        self.noscript_fallbacks = 0
        count_key = "%s:{%s}:shards" % (prefix, name)
        recorded = redis.call("GET", count_key)
        if recorded is None:
            # Nobody used the queue yet: record our count, unless another process was faster.
            recorded = redis.call("SET", count_key, DEFAULT_SHARDS, "NX", "GET") or DEFAULT_SHARDS
        self.shards = int(recorded)

    def shard_of(self, job_id):
        return zlib.crc32(job_id.encode("utf-8")) % self.shards

    @staticmethod
    def bucket_of(job_id):
        # Optional for a producer: schedule.lua computes it when given ''.
        return hashlib.sha1(job_id.encode("utf-8")).digest()[1]

    def keys(self, shard):
        return ["%s:{%s:%d}:%s" % (self.prefix, self.name, shard, k) for k in SHARD_KEY_NAMES]

    def run(self, script_name, job_id, *args):
        script = self.scripts[script_name]
        keys = self.keys(self.shard_of(job_id))
        try:
            return self.redis.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except RedisError as e:
            if not str(e).startswith("NOSCRIPT"):
                raise
            self.noscript_fallbacks += 1
            return self.redis.call("EVAL", script.text, len(keys), *keys, *args)

    def schedule(self, job_id, payload, amount, mode, policy="KEEP", bucket=""):
        # One job per call here; a call may carry more jobs of the same shard, six values each.
        return self.run("schedule", job_id, self.wake, self.shard_of(job_id), job_id, payload, amount, mode, policy,
                        bucket)

    def cancel(self, job_id):
        # The wake channel and shard let cancel revoke a job a worker claimed ahead of its due time.
        return self.run("cancel", job_id, job_id, self.wake, self.shard_of(job_id))

    def find(self, job_id):
        return self.run("find", job_id, job_id)


def expect(condition, what, reply):
    if not condition:
        raise ProtocolMismatch("%s, but Redis replied %r" % (what, reply))


def main(host, port, prefix, scripts_dir):
    redis = Connection(host, int(port))
    try:
        queue = Queue(redis, prefix, QUEUE, scripts_dir)
        facts = {"shards": queue.shards, "shard of help-email:42": queue.shard_of("help-email:42")}
        for script in queue.scripts.values():
            facts["sha " + script.name] = script.sha

        now_payload = json.dumps({"customerId": 42, "language": "en"}, separators=(",", ":"))
        created = queue.schedule("help-email:42", now_payload, 0, "in")
        expect(isinstance(created, list) and len(created) == 3 and created[0] == "CREATED"
               and isinstance(created[1], int) and isinstance(created[2], int) and created[2] // 1000 <= created[1],
               "schedule of help-email:42 should answer [CREATED, due, the server's clock in us]", created)
        facts["help-email:42 due"] = created[1]

        later_payload = json.dumps({"customerId": 43, "language": "fr"}, separators=(",", ":"))
        try:
            queue.schedule("help-email:43", later_payload, 2000, "in", bucket="256")
            raise ProtocolMismatch("a bucket of 256 should be refused, but Redis stored the job")
        except RedisError as e:
            expect(str(e).startswith("ERR bucket must be"), "a bucket of 256 should be refused", str(e))
        # This time with the bucket computed here; find and cancel compute it in Redis, so they check that it agrees.
        facts["bucket of help-email:43"] = queue.bucket_of("help-email:43")
        later = queue.schedule("help-email:43", later_payload, 2000, "in", bucket=queue.bucket_of("help-email:43"))
        expect(isinstance(later, list) and len(later) == 3 and later[0] == "CREATED" and isinstance(later[1], int)
               and isinstance(later[2], int) and later[2] // 1000 + 2000 <= later[1],
               "schedule of help-email:43 should answer [CREATED, due, the server's clock in us]", later)
        due = later[1]
        again = queue.schedule("help-email:43", later_payload, 0, "in")
        expect(again[:2] == ["KEPT", due] and len(again) == 3,
               "scheduling help-email:43 again with KEEP should answer [KEPT, %d, clock]" % due, again)

        found = queue.find("help-email:43")
        expect(found == ["PENDING", "%d|0||%s" % (due, later_payload), None, None, due],
               "find of help-email:43 should answer [PENDING, envelope, nil, nil, due]", found)

        cancelled = queue.cancel("help-email:43")
        expect(cancelled == 1, "cancel of help-email:43 should answer 1", cancelled)
        gone = queue.find("help-email:43")
        expect(gone is None, "find of a cancelled job should answer nil", gone)
        cancelled_again = queue.cancel("help-email:43")
        expect(cancelled_again == 0, "a second cancel of help-email:43 should answer 0", cancelled_again)

        facts["noscript fallbacks"] = queue.noscript_fallbacks
        for name, value in facts.items():
            print("%s: %s" % (name, value))
    finally:
        redis.close()


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: non-java-producer.py HOST PORT KEY_PREFIX SCRIPTS_DIR")
    try:
        main(*sys.argv[1:])
    except (ProtocolMismatch, RedisError, OSError) as e:
        sys.exit("%s: %s" % (type(e).__name__, e))
