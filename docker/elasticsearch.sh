#!/usr/bin/env bash
# A real single-node Elasticsearch on 127.0.0.1, without a Docker engine: the server comes from
# Maven Central (through mvn), runs on the system JDK 17+, and is cached for later runs.
#
#   bash docker/elasticsearch.sh start                      # install if needed, start, wait until ready
#   bash docker/elasticsearch.sh status                     # exit 0 when it answers, 3 when not
#   bash docker/elasticsearch.sh stop
#   bash docker/elasticsearch.sh run python -m pytest       # start, run with FINQA_ES_URL set, always stop
#
# Environment (all optional):
#   FINQA_ES_VERSION   server version (default below; must match the Python client's major.minor)
#   FINQA_ES_PORT      HTTP port (default 9200)
#   FINQA_ES_CACHE     where the unpacked server and per-port run directories live
#                      (default ~/.cache/finqa/elasticsearch; /var/cache/finqa/elasticsearch as root,
#                      because the server runs as the user finqa-es, who cannot enter /root)
#   FINQA_ES_TIMEOUT   seconds to wait for the server to become ready (default 180)
#   FINQA_M2_REPO      Maven's local repository (default ~/.m2/repository)
#   ES_JAVA_OPTS       JVM options (default -Xms512m -Xmx512m)
#   JAVA_HOME          JDK to run on (default: the one `java` on PATH belongs to)
set -euo pipefail

ES_VERSION="${FINQA_ES_VERSION:-8.19.21}"
ES_PORT="${FINQA_ES_PORT:-9200}"
ES_USER="finqa-es"
READY_TIMEOUT="${FINQA_ES_TIMEOUT:-180}"
export ES_JAVA_OPTS="${ES_JAVA_OPTS:--Xms512m -Xmx512m}"
ES_ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
if [[ $(id -u) -eq 0 ]]; then
    CACHE_DIR="${FINQA_ES_CACHE:-/var/cache/finqa/elasticsearch}"
else
    CACHE_DIR="${FINQA_ES_CACHE:-$HOME/.cache/finqa/elasticsearch}"
fi
M2_REPO="${FINQA_M2_REPO:-$HOME/.m2/repository}"
ES_HOME="$CACHE_DIR/elasticsearch-$ES_VERSION"
RUN_DIR="$CACHE_DIR/run-$ES_PORT"
PID_FILE="$RUN_DIR/elasticsearch.pid"
ES_URL="http://127.0.0.1:$ES_PORT"

die() { echo "elasticsearch.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

need() {
    command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH ($2)"
}

java_home() {
    local home="${JAVA_HOME:-}"
    if [[ -z $home ]]; then
        need java "install a JDK 17+, e.g. apt-get install openjdk-17-jdk-headless"
        home="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    fi
    [[ -x $home/bin/java ]] || die "no java at $home/bin/java (set JAVA_HOME to a JDK 17+)"
    local major
    major="$("$home/bin/java" -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print v[1]; exit }')"
    [[ $major =~ ^[0-9]+$ && $major -ge 17 ]] || die "Elasticsearch $ES_VERSION needs Java 17+, $home has '$major'"
    echo "$home"
}

# Download through Maven (into ~/.m2) and unpack into the cache once per version.
install_server() {
    [[ -x $ES_HOME/bin/elasticsearch ]] && return 0
    need mvn "install Maven, e.g. apt-get install maven"
    need unzip "run docker/install-system-deps.sh"
    mkdir -p "$CACHE_DIR"
    exec 9>"$CACHE_DIR/.install.lock"
    flock 9
    if [[ ! -x $ES_HOME/bin/elasticsearch ]]; then
        local t0 zip tmp
        t0="$(now)"
        local out
        out="$(mvn -q -B -Dstyle.color=never dependency:get -Dartifact="$ES_ARTIFACT" -Dtransitive=false 2>&1)" || {
            echo "$out" | tail -n 20 >&2
            die "mvn could not fetch $ES_ARTIFACT"
        }
        zip="$M2_REPO/org/elasticsearch/distribution/integ-test-zip/elasticsearch/$ES_VERSION/elasticsearch-$ES_VERSION.zip"
        [[ -f $zip ]] || die "mvn reported success but $zip is missing (set FINQA_M2_REPO to Maven's local repository)"
        echo "elasticsearch.sh: download of $ES_VERSION took $(since "$t0")s"
        t0="$(now)"
        tmp="$(mktemp -d "$CACHE_DIR/.unzip.XXXXXX")"
        unzip -q "$zip" -d "$tmp"
        mv "$tmp/elasticsearch-$ES_VERSION" "$ES_HOME"
        rm -rf "$tmp"
        chmod -R a+rX "$ES_HOME"
        echo "elasticsearch.sh: unzip into $ES_HOME took $(since "$t0")s"
    fi
    exec 9>&-
}

ensure_user() {
    [[ $(id -u) -eq 0 ]] || return 0
    id -u "$ES_USER" >/dev/null 2>&1 && return 0
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ES_USER"
}

# PID_FILE holds the process group the server was launched in (launcher, CLI and JVM).
server_group() {
    [[ -s $PID_FILE ]] || return 1
    local pgid
    pgid="$(cat "$PID_FILE")"
    kill -0 -- "-$pgid" 2>/dev/null || return 1
    echo "$pgid"
}

answers() {
    curl -fsS --max-time 5 "$ES_URL/_cluster/health?wait_for_status=yellow&timeout=2s" >/dev/null 2>&1
}

fail_start() {
    echo "elasticsearch.sh: $* (logs in $RUN_DIR)" >&2
    echo "--- last lines of the server output ---" >&2
    tail -n 30 "$RUN_DIR/stdout.log" >&2 2>/dev/null || true
    cmd_stop >/dev/null 2>&1 || true
    exit 1
}

cmd_start() {
    need curl "run docker/install-system-deps.sh"
    local pgid
    if pgid="$(server_group)"; then
        answers && { echo "elasticsearch.sh: already running at $ES_URL (pid $pgid)"; return 0; }
        die "a server (pid $pgid) holds $PID_FILE but does not answer at $ES_URL; run '$0 stop' first"
    fi
    answers && die "something else already answers at $ES_URL; choose another FINQA_ES_PORT"
    local jhome
    jhome="$(java_home)"
    install_server
    ensure_user

    # A fresh config, data and log directory per start; the cached install stays read-only.
    rm -rf "$RUN_DIR"
    mkdir -p "$RUN_DIR/data" "$RUN_DIR/logs"
    cp -r "$ES_HOME/config" "$RUN_DIR/config"
    if [[ $(id -u) -eq 0 ]]; then chown -R "$ES_USER:" "$RUN_DIR"; fi

    local t0
    t0="$(now)"
    # cd: jvm.options writes gc and error logs relative to the working directory.
    # setsid: a process group of its own, so stop ends the launcher, the CLI and the JVM together.
    # The server refuses to run as root: as root, it runs as a system user made for it.
    local -a as_user=()
    if [[ $(id -u) -eq 0 ]]; then as_user=(runuser -u "$ES_USER" --); fi
    cd "$RUN_DIR"
    setsid "${as_user[@]}" env ES_JAVA_HOME="$jhome" ES_PATH_CONF="$RUN_DIR/config" \
        ES_JAVA_OPTS="$ES_JAVA_OPTS" "$ES_HOME/bin/elasticsearch" \
        -Ecluster.name=finqa -Enode.name=finqa-es \
        -Ediscovery.type=single-node -Expack.security.enabled=false \
        -Enetwork.host=127.0.0.1 -Ehttp.port="$ES_PORT" \
        -Ecluster.routing.allocation.disk.threshold_enabled=false \
        -Eaction.destructive_requires_name=false \
        -Epath.data="$RUN_DIR/data" -Epath.logs="$RUN_DIR/logs" \
        </dev/null >"$RUN_DIR/stdout.log" 2>&1 &
    echo "$!" >"$PID_FILE"
    cd - >/dev/null

    local deadline=$((SECONDS + READY_TIMEOUT))
    until answers; do
        server_group >/dev/null || fail_start "the server exited before it became ready"
        ((SECONDS < deadline)) || fail_start "not ready at $ES_URL after ${READY_TIMEOUT}s (FINQA_ES_TIMEOUT)"
        sleep 0.5
    done
    echo "elasticsearch.sh: $ES_VERSION ready at $ES_URL (pid $(cat "$PID_FILE")) after $(since "$t0")s"
}

cmd_stop() {
    local pgid
    if ! pgid="$(server_group)"; then
        rm -f "$PID_FILE"
        echo "elasticsearch.sh: not running on port $ES_PORT"
        return 0
    fi
    kill -TERM -- "-$pgid" 2>/dev/null || true
    for _ in $(seq 1 60); do
        kill -0 -- "-$pgid" 2>/dev/null || break
        sleep 0.5
    done
    if kill -0 -- "-$pgid" 2>/dev/null; then
        echo "elasticsearch.sh: pid $pgid ignored SIGTERM for 30s; killing it" >&2
        kill -KILL -- "-$pgid" 2>/dev/null || true
    fi
    rm -f "$PID_FILE"
    echo "elasticsearch.sh: stopped (pid $pgid)"
}

cmd_status() {
    local pgid
    if answers; then
        pgid="$(server_group || echo "not started by this script")"
        echo "elasticsearch.sh: running at $ES_URL (pid $pgid)"
        return 0
    fi
    if pgid="$(server_group)"; then
        echo "elasticsearch.sh: pid $pgid is alive but $ES_URL does not answer"
    else
        echo "elasticsearch.sh: not running at $ES_URL"
    fi
    return 3
}

cmd_run() {
    [[ $# -gt 0 ]] || die "usage: $0 run CMD [ARGS...]"
    trap 'cmd_stop || true' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cmd_start
    export FINQA_ES_URL="$ES_URL" FINQA_REQUIRE_ES=1
    # In the background with wait, so a signal reaches the traps (and the command) at once
    # instead of after the command ends; <&0 keeps our stdin, which '&' would replace.
    "$@" <&0 &
    local child=$! rc=0
    trap 'kill -TERM "$child" 2>/dev/null; exit 130' INT
    trap 'kill -TERM "$child" 2>/dev/null; exit 143' TERM
    wait "$child" || rc=$?
    return "$rc"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    run) shift; cmd_run "$@" ;;
    *) echo "usage: $0 start|stop|status|run CMD [ARGS...]" >&2; exit 2 ;;
esac
