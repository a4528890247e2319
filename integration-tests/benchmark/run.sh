#!/usr/bin/env bash
# Runs the benchmark of SPEC §6: this extension, BullMQ, Redisson and the raw Redis ceiling, one after the other, each
# against a fresh redis-server of its own on a free port (no persistence). Builds what it needs, then writes the
# report (Markdown table, charts) under integration-tests/benchmark/target/results/<time>/ and, unless --no-docs,
# the documentation page docs/modules/ROOT/pages/performance.adoc with its images.
#
#   integration-tests/benchmark/run.sh [options]
#
#   --runs N                 runs of every system; the report shows medians (default 1)
#   --systems LIST           among quarkus,bullmq,redisson,raw (default: all)
#   --workloads LIST         among W1,W2,W3,W4,W5,W6 (default: all; W4 is measured while W2 loads)
#   --jobs N                 jobs of W1, W2 and W4 (default 100000)
#   --lateness-seconds N     duration of W3 at 1,000 jobs/s (default 20)
#   --idle-seconds N         duration of the W5 measurement (default 30)
#   --schedule-linger D      with W3, this extension runs W3 once more in an instance with this schedule-linger,
#                            reported as W3L (default 50ms; 0 skips it)
#   --w6-sizes LIST          pending jobs of W6 (default 10000,1000000,10000000)
#   --w6-batch N             due jobs drained at each W6 size (default 20000)
#   --quick                  a smoke run: 20k jobs, W3 5 s, W5 10 s, W6 at 10k and 100k; implies --no-docs
#   --no-docs                leave the documentation page and images alone
#   --skip-build             use the build already in target/
#   --offline                build with Maven offline (-o)
#   --jfr                    record a JFR profile of the Quarkus application into the results folder
#   -h, --help               this text
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

runs=1
schedule_linger=50ms
systems="quarkus,bullmq,redisson,raw"
workloads="W1,W2,W3,W4,W5,W6"
jobs=100000
lateness_seconds=20
idle_seconds=30
w6_sizes="10000,1000000,10000000"
w6_batch=20000
docs=yes
build=yes
offline=""
jfr=no
command_line="integration-tests/benchmark/run.sh${*:+ $*}"

usage() { sed -n '2,/^set -euo/p' "$here/run.sh" | sed '$d' | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --systems) systems="$2"; shift 2 ;;
    --workloads) workloads="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --lateness-seconds) lateness_seconds="$2"; shift 2 ;;
    --idle-seconds) idle_seconds="$2"; shift 2 ;;
    --schedule-linger) schedule_linger="$2"; shift 2 ;;
    --w6-sizes) w6_sizes="$2"; shift 2 ;;
    --w6-batch) w6_batch="$2"; shift 2 ;;
    --quick) jobs=20000; lateness_seconds=5; idle_seconds=10; w6_sizes="10000,100000"; w6_batch=5000; docs=no
      shift ;;
    --no-docs) docs=no; shift ;;
    --skip-build) build=no; shift ;;
    --offline) offline="-o"; shift ;;
    --jfr) jfr=yes; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "Unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

has() { [[ ",$1," == *",$2,"* ]]; }
log() { echo "[bench $(date +%H:%M:%S)] $*"; }

for tool in redis-server redis-cli redis-benchmark java python3; do
  command -v "$tool" >/dev/null || { echo "$tool is required (apt-get install redis-server openjdk-17-jdk python3)" >&2; exit 1; }
done
if has "$systems" bullmq; then
  command -v node >/dev/null || { echo "node is required for BullMQ (Node 20)" >&2; exit 1; }
fi
# The charts are drawn by Java2D, which needs a font.
if ! fc-list 2>/dev/null | grep -q . ; then
  echo "No font found for the charts: apt-get install -y fonts-dejavu-core fontconfig" >&2
  exit 1
fi

app_jar="$here/app/target/quarkus-app/quarkus-run.jar"
peers_cp="$here/peers/target/classes:$here/peers/target/lib/*"

if [[ $build == yes ]]; then
  log "Building the extension and the benchmark (Maven, reactor build; nothing is installed into ~/.m2)"
  ./mvnw -B -q $offline package -DskipTests -Pbenchmark \
    -pl integration-tests/benchmark/app,integration-tests/benchmark/peers -am
fi
[[ -f "$app_jar" ]] || { echo "Missing $app_jar: build without --skip-build" >&2; exit 1; }
# The application must bundle the engine of this clone, not a 999-SNAPSHOT someone installed into ~/.m2 (a build of
# the benchmark module without -am would pick that one up silently).
engine_jar="$root/runtime/target/quarkus-delayed-jobs-999-SNAPSHOT.jar"
bundled_jar="$here/app/target/quarkus-app/lib/main/io.quarkiverse.delayedjobs.quarkus-delayed-jobs-999-SNAPSHOT.jar"
if ! cmp -s "$engine_jar" "$bundled_jar"; then
  echo "The benchmark application does not bundle this clone's engine ($engine_jar): build without --skip-build" >&2
  exit 1
fi

if has "$systems" bullmq; then
  if [[ ! -d "$here/bullmq/node_modules/bullmq" ]]; then
    log "Installing BullMQ from npm into $here/bullmq/node_modules"
    # package.json pins BullMQ and ioredis exactly, and BullMQ pins its own dependencies; no lock file is kept,
    # since the lock this npm writes leaves out optional platform packages and then fails `npm ci`.
    (cd "$here/bullmq" && npm install --no-package-lock --no-audit --no-fund --loglevel=error)
  fi
fi

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="$here/target/results/$stamp"
mkdir -p "$out/logs"
results="$out/results.jsonl"
: > "$results"

version_of() { sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$1" 2>/dev/null | head -1; }
{
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "command=$command_line"
  echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "cores=$(nproc)"
  echo "memory=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "os=$(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "java=$(java -version 2>&1 | head -1)"
  echo "node=$(node --version 2>/dev/null || echo none)"
  echo "redis=$(redis-server --version | sed 's/ sha=.*//')"
  echo "quarkus=$(sed -n 's:.*<quarkus.version>\(.*\)</quarkus.version>.*:\1:p' pom.xml)"
  echo "bullmq=$(version_of "$here/bullmq/node_modules/bullmq/package.json")"
  echo "ioredis=$(version_of "$here/bullmq/node_modules/ioredis/package.json")"
  echo "redisson=$(sed -n 's:.*<redisson.version>\(.*\)</redisson.version>.*:\1:p' "$here/peers/pom.xml")"
} > "$out/machine.properties"

redis_dir=""
redis_port=""

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start_redis() {
  redis_dir="$(mktemp -d "${TMPDIR:-/tmp}/bench-redis.XXXXXX")"
  redis_port="$(free_port)"
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --dir "$redis_dir" --pidfile "$redis_dir/redis.pid" --logfile "$redis_dir/redis.log"
  for _ in $(seq 1 100); do
    redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "redis-server did not start on port $redis_port" >&2
  exit 1
}

# Appends the server's slow log and command statistics to the logs of the system's run ($system and $run of the
# caller), before the server stops.
save_redis_stats() {
  redis-cli -p "$redis_port" slowlog get 20 >> "$out/logs/$system-run$run-slowlog.txt" 2>&1 || true
  redis-cli -p "$redis_port" info commandstats >> "$out/logs/$system-run$run-commandstats.txt" 2>&1 || true
}
# A new redis-server for the next phase of the same system.
fresh_redis() {
  save_redis_stats
  stop_redis
  start_redis
}
# The option that points the Quarkus application at the current server.
quarkus_redis() {
  echo "-Dquarkus.redis.hosts=redis://127.0.0.1:$redis_port"
}
stop_redis() {
  [[ -n "$redis_dir" && -f "$redis_dir/redis.pid" ]] || return 0
  local pid
  pid="$(cat "$redis_dir/redis.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -rf "$redis_dir"
  redis_dir=""
}

child_pid=""
cleanup() {
  [[ -n "$child_pid" ]] && kill "$child_pid" 2>/dev/null || true
  stop_redis
}
trap cleanup EXIT

record_load() { # run system before|after
  read -r l1 l5 l15 _ < /proc/loadavg
  # CPU time of the whole machine in ticks, and the part the hypervisor took (steal) for the report to compare.
  local user nice system idle iowait irq softirq steal
  read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
  local total=$((user + nice + system + idle + iowait + irq + softirq + steal))
  printf '{"type":"load","run":%s,"system":"%s","when":"%s","load1":%s,"load5":%s,"load15":%s,"cpuSteal":%s,"cpuTotal":%s}\n' \
    "$1" "$2" "$3" "$l1" "$l5" "$l15" "$steal" "$total" >> "$results"
  log "$2 run $1, load average $3: $l1 $l5 $l15"
}

# Starts the system idle in the background, waits until it says it is ready, lets its start-up traffic pass, then
# has the idle meter watch Redis for --idle-seconds.
measure_idle() { # run system command...
  local run="$1" system="$2"; shift 2
  local logfile="$out/logs/$system-idle-run$run.log"
  "$@" > "$logfile" 2>&1 &
  child_pid=$!
  local ready=no
  for _ in $(seq 1 600); do
    if grep -q BENCH-IDLE-READY "$logfile" 2>/dev/null; then ready=yes; break; fi
    kill -0 "$child_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ $ready != yes ]]; then
    echo "$system did not become ready for W5; see $logfile" >&2
    kill "$child_pid" 2>/dev/null || true
    child_pid=""
    return 1
  fi
  sleep 5
  java -cp "$peers_cp" io.quarkiverse.delayedjobs.benchmark.peers.IdleMeter --port "$redis_port" \
    --seconds "$idle_seconds" --out "$results" --run "$run" --system "$system"
  # Done measuring: stop the idle instance now rather than when its own time runs out.
  kill "$child_pid" 2>/dev/null || true
  wait "$child_pid" || true
  child_pid=""
}

# The runners take the workloads they know and ignore the others.
# W5 runs on its own; an empty list (W5 alone) is no failure.
runner_workloads="$(echo "$workloads" | tr ',' '\n' | { grep -v '^W5$' || true; } | paste -sd, -)"
idle_for=$((idle_seconds + 15))
# The JVMs run with their defaults (G1 here), as users would run them.
jvm_opts=()

run_system() { # run system
  local run="$1" system="$2"
  local logfile="$out/logs/$system-run$run.log"
  start_redis
  record_load "$run" "$system" before
  log "$system run $run on redis port $redis_port"
  local common=(--out "$results" --run "$run" --jobs "$jobs" --lateness-seconds "$lateness_seconds")
  case "$system" in
    quarkus)
      local jfr_opts=()
      if [[ $jfr == yes ]]; then
        jfr_opts=(-XX:StartFlightRecording=filename="$out/quarkus-run$run.jfr",settings=profile,jdk.ExecutionSample#period=1ms)
      fi
      if [[ -n "$runner_workloads" ]]; then
        timeout 1200 java "${jvm_opts[@]}" "${jfr_opts[@]}" "$(quarkus_redis)" -jar "$app_jar" "${common[@]}" \
          --workloads "$runner_workloads" --w6-sizes "$w6_sizes" --w6-batch "$w6_batch" 2>&1 | tee "$logfile" \
          | grep --line-buffered -E '\[bench\]|ERROR|WARN' || true
      fi
      if has "$workloads" W3 && [[ "$schedule_linger" != 0 ]]; then
        # W3 again, in an instance whose producer lingers (an opt-in setting): one figure of its own. In a
        # redis-server of its own: after W6's 10M jobs, even flushed, the same server spent 2-4 times the CPU on it.
        fresh_redis
        timeout 600 java "${jvm_opts[@]}" "$(quarkus_redis)" -Dquarkus.delayed-jobs.schedule-linger="$schedule_linger" \
          -jar "$app_jar" "${common[@]}" --workloads W3L 2>&1 | tee -a "$logfile" \
          | grep --line-buffered -E '\[bench\]|ERROR|WARN' || true
      fi
      if has "$workloads" W5; then
        fresh_redis
        measure_idle "$run" quarkus timeout 600 java "${jvm_opts[@]}" "$(quarkus_redis)" -jar "$app_jar" \
          --workloads idle --idle-seconds "$idle_for" || true
      fi
      ;;
    bullmq)
      if [[ -n "$(echo "$runner_workloads" | tr ',' '\n' | grep -v W6)" ]]; then
        timeout 1200 node "$here/bullmq/runner.mjs" --port "$redis_port" "${common[@]}" \
          --workloads "$runner_workloads" 2>&1 | tee "$logfile" || true
      fi
      if has "$workloads" W5; then
        fresh_redis
        measure_idle "$run" bullmq timeout 600 node "$here/bullmq/runner.mjs" --port "$redis_port" \
          --workloads idle --idle-seconds "$idle_for" || true
      fi
      ;;
    redisson)
      local redisson=(java "${jvm_opts[@]}" -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$peers_cp"
        io.quarkiverse.delayedjobs.benchmark.peers.RedissonRunner)
      if [[ -n "$(echo "$runner_workloads" | tr ',' '\n' | grep -v W6)" ]]; then
        timeout 1200 "${redisson[@]}" --port "$redis_port" "${common[@]}" --workloads "$runner_workloads" 2>&1 \
          | tee "$logfile" || true
      fi
      if has "$workloads" W5; then
        fresh_redis
        measure_idle "$run" redisson timeout 600 "${redisson[@]}" --port "$redis_port" --workloads idle \
          --idle-seconds "$idle_for" || true
      fi
      ;;
    raw)
      if [[ -n "$runner_workloads" ]]; then
        timeout 1200 java "${jvm_opts[@]}" -cp "$peers_cp" io.quarkiverse.delayedjobs.benchmark.peers.RawRunner \
          --port "$redis_port" --out "$results" --run "$run" --jobs "$jobs" --workloads "$runner_workloads" \
          --w6-sizes "$w6_sizes" --w6-batch "$w6_batch" 2>&1 | tee "$logfile" || true
      fi
      ;;
    *) echo "Unknown system $system" >&2; exit 2 ;;
  esac
  save_redis_stats
  record_load "$run" "$system" after
  stop_redis
}

started=$(date +%s)
for run in $(seq 1 "$runs"); do
  for system in $(echo "$systems" | tr ',' ' '); do
    run_system "$run" "$system"
  done
done
log "Measured in $(( $(date +%s) - started )) s; writing the report"

docs_args=()
if [[ $docs == yes ]]; then
  docs_args=(--docs "$root/docs/modules/ROOT")
fi
java -cp "$peers_cp" io.quarkiverse.delayedjobs.benchmark.peers.Report --results "$out" "${docs_args[@]}"
log "Report: $out/report.md"
if [[ $docs == yes ]]; then
  log "Documentation page: docs/modules/ROOT/pages/performance.adoc (images in docs/modules/ROOT/assets/images)"
fi
