"""Runs the benchmark suite: every server under test, driven by `oxmcp bench` over stdio and
Streamable HTTP in one run on this machine; writes results.jsonl and RESULTS.md (with a
plot, throughput.png) next to this file.

    python tests/bench/run.py [--quick]

Each measurement lasts a fixed time (`--seconds`), so slow and fast servers cost the same
and the whole run stays within minutes. Servers whose runtime is missing, or whose binding
lacks a transport, are reported as skipped with the reason, not silently dropped.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SERVERS = HERE / "servers"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
RELEASE = TARGET / "release"
# The load driver: `oxmcp bench` (cli/src/bench.rs).
LOAD = RELEASE / "oxmcp"
# oxmcp in Rust: the fixture server (tests/fixtures/rust), whose tools include echo_with_progress.
FIXTURE_SERVER = RELEASE / "fixture-server"
PYTHON = ROOT / ".venv" / "bin" / "python"
NODE = shutil.which("node") or "node"
RMCP = TARGET / "bench-rmcp" / "release" / "rmcp-echo"
SMALL, LARGE = 64, 64 * 1024
# The window of the main comparison: 32 requests in flight (stdio) or 32 workers (HTTP).
WIDE = 32
# An oxmcp server's eras are compared over this many alternating legacy/modern pairs (the
# first pair that of the main runs), and the median ratio taken: one pair a few seconds apart
# on a shared two-core machine swings by 15 %.
ERA_PAIRS = 5
# The targets that set one server against another at the same window (not the best of each):
# ours and theirs (server, configuration), the transport, the window (in flight over stdio,
# workers over HTTP, one session) and the factor ours must reach, in the legacy era. Each is
# measured over ERA_PAIRS alternating pairs of runs (the first pair that of the main runs) and
# the median ratio taken, as the eras are.
DUELS = (
    (
        "oxmcp-node stdio: one call at a time ≥ 1.5x official-ts",
        ("oxmcp-node", "default"),
        ("official-ts", "default"),
        "stdio",
        1,
        1.5,
    ),
    (
        "oxmcp-node http: ≥ 5x official-ts",
        ("oxmcp-node", "default"),
        ("official-ts", "stateful"),
        "http",
        WIDE,
        5.0,
    ),
    (
        "oxmcp-python stdio: `async def` handlers ≥ `def` handlers",
        ("oxmcp-python", "async def"),
        ("oxmcp-python", "default"),
        "stdio",
        WIDE,
        1.0,
    ),
)


@dataclass
class Setup:
    """One server under test in one configuration, on one transport."""

    server: str
    config: str
    transport: str
    command: list[str]
    eras: tuple[str, ...]
    requires: list[Path]
    # Legacy sessions (HTTP): measured with 1 and 32 sessions, and idle.
    sessions: bool = False
    # More arguments for the driver, such as the tool it calls.
    load_args: tuple[str, ...] = ()

    @property
    def oxmcp(self) -> bool:
        return self.server.startswith("oxmcp")

    def missing(self) -> str | None:
        absent = [str(p) for p in self.requires if not p.exists()]
        return f"not built or not installed: {', '.join(absent)}" if absent else None


def setups() -> list[Setup]:
    py, node_sdk = [PYTHON], ROOT / "node_modules" / "@modelcontextprotocol" / "sdk"
    ox_node = [ROOT / "bindings-node" / "dist" / "index.js"]
    both, legacy = ("legacy", "modern"), ("legacy",)
    official_py = [str(PYTHON), str(SERVERS / "official_python.py")]
    official_ts = [NODE, str(SERVERS / "official_ts.mjs")]
    return [
        Setup("oxmcp-rust", "default", "stdio", [str(FIXTURE_SERVER)], both, [FIXTURE_SERVER]),
        Setup("oxmcp-python", "default", "stdio", [str(PYTHON), str(SERVERS / "oxmcp_python.py")], both, py),
        Setup(
            "oxmcp-python",
            "async def",
            "stdio",
            [str(PYTHON), str(SERVERS / "oxmcp_python.py"), "stdio", "async"],
            legacy,
            py,
        ),
        Setup("oxmcp-node", "default", "stdio", [NODE, str(SERVERS / "oxmcp_node.mjs"), "stdio"], both, ox_node),
        Setup("rmcp", "stdio()", "stdio", [str(RMCP), "stdio"], legacy, [RMCP]),
        Setup("rmcp", "stdio_pipes()", "stdio", [str(RMCP), "stdio-pipes"], legacy, [RMCP]),
        Setup("official-python", "default", "stdio", official_py, legacy, py),
        Setup("official-ts", "default", "stdio", [*official_ts, "stdio"], legacy, [node_sdk]),
        Setup(
            "oxmcp-rust",
            "default",
            "http",
            [str(FIXTURE_SERVER), "--http", "127.0.0.1:0"],
            both,
            [FIXTURE_SERVER],
            sessions=True,
        ),
        # The same server answering with SSE streams: each call asks for progress, and the
        # tool reports it before its result (a plain call gets one JSON body).
        Setup(
            "oxmcp-rust",
            "SSE answers",
            "http",
            [str(FIXTURE_SERVER), "--http", "127.0.0.1:0"],
            both,
            [FIXTURE_SERVER],
            load_args=("--tool", "echo_with_progress", "--progress"),
        ),
        Setup(
            "oxmcp-python",
            "default",
            "http",
            [str(PYTHON), str(SERVERS / "oxmcp_python.py"), "http"],
            both,
            py,
            sessions=True,
        ),
        # The same endpoint as an ASGI app (server.http_app()) under uvicorn, as users mount
        # it in FastAPI or Starlette: uvicorn's HTTP parsing replaces the core's listener.
        Setup(
            "oxmcp-python",
            "ASGI, uvicorn",
            "http",
            [str(PYTHON), str(SERVERS / "oxmcp_python.py"), "asgi"],
            both,
            py,
        ),
        Setup(
            "oxmcp-node",
            "default",
            "http",
            [NODE, str(SERVERS / "oxmcp_node.mjs"), "http"],
            both,
            ox_node,
            sessions=True,
        ),
        Setup("rmcp", "stateful, TCP_NODELAY", "http", [str(RMCP), "http"], legacy, [RMCP], sessions=True),
        # rmcp's default socket options: Nagle's algorithm holds each answer ~40 ms.
        Setup("rmcp", "stateful, default socket", "http", [str(RMCP), "http-default"], legacy, [RMCP]),
        Setup("rmcp", "stateless JSON", "http", [str(RMCP), "stateless"], both, [RMCP]),
        Setup("official-python", "stateful", "http", [*official_py, "http"], legacy, py, sessions=True),
        Setup("official-ts", "stateful", "http", [*official_ts, "http"], legacy, [node_sdk], sessions=True),
        Setup("official-ts", "stateless JSON", "http", [*official_ts, "stateless"], legacy, [node_sdk]),
    ]


class Skip(Exception):
    """A setup that cannot run here, and why."""


def load(args: list[str]) -> dict | None:
    """One `oxmcp bench` run; its JSON line, or None when it failed."""
    try:
        done = subprocess.run([str(LOAD), "bench", "--json", *args], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        print(f"  failed: {' '.join(args[:12])}: timed out", file=sys.stderr)
        return None
    line = done.stdout.strip().splitlines()[-1:] or [""]
    if not line[0]:
        print(f"  failed: {' '.join(args[:12])}: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    result = json.loads(line[0])
    result["failed"] = done.returncode != 0
    if result["failed"]:
        print(f"  {result.get('errors')} errors: {done.stderr.strip()[-300:]}", file=sys.stderr)
    return result


def start_http(command: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """Starts an HTTP server (with `env` as its environment, when given) and reads the URL
    it prints (`LISTENING <url>` on stderr); a server that prints `UNSUPPORTED <why>` or
    exits first is skipped."""
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    assert process.stderr is not None
    said = []
    for line in process.stderr:
        if line.startswith("LISTENING "):
            url = line.split()[1]
            wait_for_port(process, url)
            # Keep reading what it logs: a full pipe would block the server mid-run (the
            # official Python SDK logs every dropped stream of the idle-session probe).
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, url
        if line.startswith("UNSUPPORTED "):
            stop(process)
            raise Skip(line.removeprefix("UNSUPPORTED ").strip())
        said.append(line.strip())
    stop(process)
    raise Skip(f"exited before listening: {' '.join(said)[-300:]}")


def wait_for_port(process: subprocess.Popen[str], url: str) -> None:
    """Waits until the server accepts connections (some print their URL before binding)."""
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            assert process.stderr is not None
            raise Skip(f"exited before listening: {process.stderr.read().strip()[-300:]}")
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    stop(process)
    raise Skip(f"{url} never accepted a connection")


def stop(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.wait()


class Runner:
    """Runs every setup and collects the results, and the setups skipped with why."""

    def __init__(self, quick: bool) -> None:
        seconds = "1" if quick else "3"
        # The call cap is far above what a fast server does in the time, so time decides.
        self.timing = ["--seconds", seconds, "--calls", "1000000"]
        self.warmup = 300 if quick else 2000
        self.idle_sessions = "200" if quick else "1000"
        self.results: list[dict] = []
        self.skipped: list[tuple[Setup, str]] = []
        # Runs that gave no figures at all (the driver failed), by label.
        self.failures: list[str] = []

    def measure(self, setup: Setup, label: str, args: list[str], pair: dict[str, int] | None = None) -> None:
        """One run, its figures kept with the pair of runs it is part of (`{"era_pair": n}`)."""
        label = f"{setup.server} [{setup.config}] {setup.transport} {label}"
        print(label, file=sys.stderr)
        result = load(["--name", setup.server, *args])
        if result:
            self.results.append({**result, "config": setup.config, **(pair or {})})
        else:
            self.failures.append(label)

    def calls(
        self, setup: Setup, era: str, payload: int, window: str, args: list[str], pair: int = 0, duel: bool = False
    ) -> None:
        # Large payloads are ~100x slower per call: a tenth of the warm-up calls keeps it short.
        warmup = self.warmup if payload == SMALL else self.warmup // 10
        timing = ["--era", era, "--payload", str(payload), "--warmup", str(warmup), *self.timing]
        kind = "duel_pair" if duel else "era_pair"
        label = f"{era} {payload} B {window}" + (f" ({kind.replace('_', ' ')} {pair + 1})" if pair else "")
        self.measure(setup, label, [*timing, *setup.load_args, *args], {kind: pair} if pair else {})

    def era_pairs(self, setup: Setup, window: str, args: list[str]) -> None:
        """The pairs after the first of an oxmcp server's legacy and modern runs at 64 B,
        which `era_targets` compares with the first (kept out of every other figure)."""
        if setup.oxmcp and setup.config == "default" and setup.eras == ("legacy", "modern"):
            for pair in range(1, ERA_PAIRS):
                for era in setup.eras:
                    self.calls(setup, era, SMALL, window, args, pair)

    def duels(self, setups: list[Setup]) -> None:
        """The pairs after the first of each duel's runs (legacy, 64 B), ours then theirs,
        which `duel_target` compares with the main runs (kept out of every other figure)."""
        by_name = {(s.server, s.config, s.transport): s for s in setups if not s.missing()}
        for pair in range(1, ERA_PAIRS):
            for _, ours, theirs, transport, window, _ in DUELS:
                if (*ours, transport) in by_name and (*theirs, transport) in by_name:
                    for setup in (by_name[(*ours, transport)], by_name[(*theirs, transport)]):
                        self.duel_run(setup, window, pair)

    def duel_run(self, setup: Setup, window: int, pair: int) -> None:
        """One run of a duel's pair `pair`: `window` in flight over stdio, or `window`
        workers of one session on a server started for it over HTTP."""
        if setup.transport == "stdio":
            args = ["--in-flight", str(window), "--", *setup.command]
            self.calls(setup, "legacy", SMALL, f"{window} in flight", args, pair, duel=True)
            return
        process, url = start_http(setup.command)
        try:
            args = http_load(url, process, window, 1)
            self.calls(setup, "legacy", SMALL, f"{window} workers, 1 sessions", args, pair, duel=True)
        finally:
            stop(process)

    def run(self, setup: Setup) -> None:
        if missing := setup.missing():
            self.skip(setup, missing)
        elif setup.transport == "stdio":
            self.stdio(setup)
        else:
            try:
                self.http(setup)
            except Skip as why:
                self.skip(setup, str(why))

    def skip(self, setup: Setup, why: str) -> None:
        print(f"skipped {setup.server} [{setup.config}] {setup.transport}: {why}", file=sys.stderr)
        self.skipped.append((setup, why))

    def stdio(self, setup: Setup) -> None:
        stdio = lambda in_flight: ["--in-flight", str(in_flight), "--", *setup.command]  # noqa: E731
        for era in setup.eras:
            for in_flight in (1, WIDE):
                self.calls(setup, era, SMALL, f"{in_flight} in flight", stdio(in_flight))
        self.era_pairs(setup, f"{WIDE} in flight", stdio(WIDE))
        self.calls(setup, setup.eras[0], LARGE, f"{WIDE} in flight", stdio(WIDE))

    def http(self, setup: Setup) -> None:
        process, url = start_http(setup.command)
        http = lambda sessions: http_load(url, process, WIDE, sessions)  # noqa: E731
        try:
            for era in setup.eras:
                for sessions in (1, WIDE) if setup.sessions and era == "legacy" else (1,):
                    self.calls(setup, era, SMALL, f"{WIDE} workers, {sessions} sessions", http(sessions))
            self.era_pairs(setup, f"{WIDE} workers, 1 sessions", http(1))
            # Last, so that the peak memory it reports is that of the large payloads.
            self.calls(setup, setup.eras[0], LARGE, f"{WIDE} workers", http(1))
        finally:
            stop(process)
        if setup.sessions:
            self.idle(setup)

    def idle(self, setup: Setup) -> None:
        """Memory per idle session, on a fresh server: one that served load first has free
        heap left over that new sessions fill without growing."""
        process, url = start_http(setup.command)
        try:
            args = ["--idle-sessions", self.idle_sessions, "--url", url, "--server-pid", str(process.pid)]
            self.measure(setup, "idle sessions", args)
        finally:
            stop(process)


def http_load(url: str, process: subprocess.Popen[str], workers: int, sessions: int) -> list[str]:
    """The driver's arguments for `workers` calling the server `process` at `url` over
    `sessions` sessions."""
    return ["--url", url, "--concurrency", str(workers), "--sessions", str(sessions), "--server-pid", str(process.pid)]


# Reading the results


def throughput_rows(results: list[dict], era_pair: int = 0, duel_pair: int = 0) -> list[dict]:
    """The runs that measured calls, without failures, of the main runs (both pairs 0), of the
    pair of eras `era_pair` or of the duels' pair `duel_pair`."""
    return [
        r
        for r in results
        if "calls_per_s" in r
        and not r.get("failed")
        and r.get("era_pair", 0) == era_pair
        and r.get("duel_pair", 0) == duel_pair
    ]


def best(
    rows: list[dict], transport: str, payload: int = SMALL, window: int = WIDE, server: str | None = None
) -> dict | None:
    """The row with the highest throughput on `transport` with `payload` and `window` in flight,
    of `server`, or of the peers (every server but oxmcp's) when `server` is None."""
    kept = [
        r
        for r in rows
        if (r["transport"], r["payload"], r["concurrency"]) == (transport, payload, window)
        and (r["server"] == server if server else not is_oxmcp(r))
    ]
    return max(kept, key=lambda r: r["calls_per_s"], default=None)


def is_oxmcp(row: dict) -> bool:
    return row["server"].startswith("oxmcp")


def main_window(row: dict, transport: str) -> bool:
    """The comparison point of the targets: 64 B payloads with 32 in flight."""
    return row["transport"] == transport and row["payload"] == SMALL and row["concurrency"] == WIDE


def who(row: dict | None) -> str:
    if row is None:
        return "-"
    return f"{row['server']} [{row['config']}]" + (f" {row['era']}" if row.get("era") else "")


@dataclass
class Target:
    """One target of the issue, with what was measured against it."""

    goal: str
    ours: dict | None
    theirs: dict | None
    measured: str
    met: bool | None


def ratio_target(goal: str, ours: dict | None, theirs: dict | None, factor: float) -> Target:
    if ours is None or theirs is None:
        return Target(goal, ours, theirs, "not measured", None)
    ratio = ours["calls_per_s"] / theirs["calls_per_s"]
    return Target(
        goal,
        ours,
        theirs,
        f"{ratio:.2f}x ({ours['calls_per_s']:.0f} vs {theirs['calls_per_s']:.0f} calls/s)",
        ratio >= factor,
    )


def targets(results: list[dict]) -> list[Target]:
    rows = throughput_rows(results)
    found: list[Target] = []
    for transport in ("stdio", "http"):
        ours, peer = best(rows, transport, server="oxmcp-rust"), best(rows, transport)
        found.append(ratio_target(f"Rust {transport}: throughput ≥ fastest peer", ours, peer, 1.0))
        if ours and peer:
            found.append(
                Target(
                    f"Rust {transport}: lower p99",
                    ours,
                    peer,
                    f"{ours['p99_us']:.0f} vs {peer['p99_us']:.0f} µs",
                    ours["p99_us"] < peer["p99_us"],
                )
            )
            cpu, peer_cpu = ours.get("server_cpu_us_per_call"), peer.get("server_cpu_us_per_call")
            if cpu is not None and peer_cpu:
                found.append(
                    Target(
                        f"Rust {transport}: server CPU/call ≤ 2/3 of the fastest peer's",
                        ours,
                        peer,
                        f"{cpu:.1f} vs {peer_cpu:.1f} µs ({cpu / peer_cpu:.2f})",
                        cpu <= peer_cpu * 2 / 3,
                    )
                )
    for ours_name, peer_name, factors in (
        ("oxmcp-python", "official-python", {"stdio": 10, "http": 10}),
        # Over HTTP, a duel (`DUELS`): the official server's throughput swings run to run.
        ("oxmcp-node", "official-ts", {"stdio": 1.5}),
    ):
        for transport, factor in factors.items():
            ours, peer = best(rows, transport, server=ours_name), best(rows, transport, server=peer_name)
            found.append(ratio_target(f"{ours_name} {transport}: ≥ {factor}x {peer_name}", ours, peer, factor))
    found.extend(binding_targets(rows))
    duel_rows = [throughput_rows(results, duel_pair=pair) for pair in range(ERA_PAIRS)]
    found.extend(duel_target(duel, duel_rows) for duel in DUELS)
    found.extend(era_targets([throughput_rows(results, pair) for pair in range(ERA_PAIRS)]))
    idle = {r["server"]: r for r in results if "idle_session_kib" in r}
    for name in ("oxmcp-rust", "oxmcp-python", "oxmcp-node"):
        r = idle.get(name)
        found.append(
            Target(
                f"{name}: idle legacy HTTP session < 8 KiB",
                r,
                None,
                "not measured" if r is None else f"{r['idle_session_kib']:.1f} KiB",
                r and r["idle_session_kib"] < 8,
            )
        )
    for name, limit in (("oxmcp-rust", 5), ("oxmcp-python", 200), ("oxmcp-node", 130)):
        starts = [r for r in results if r["server"] == name and r.get("startup_ms") is not None]
        first = min(starts, key=lambda r: r["startup_ms"], default=None)
        found.append(
            Target(
                f"{name}: start-up < {limit} ms",
                first,
                None,
                "not measured" if first is None else f"{first['startup_ms']:.1f} ms (fastest of its runs)",
                first and first["startup_ms"] < limit,
            )
        )
    for name in ("oxmcp-rust", "oxmcp-python", "oxmcp-node"):
        growth = peak_growth(rows, name)
        found.append(
            Target(
                f"{name}: peak RSS bounded with 64 KiB payloads at 32 in flight (< {GROWTH_LIMIT_MIB} MiB over 64 B)",
                None,
                None,
                "not measured" if growth is None else f"+{growth / 1024:.1f} MiB",
                None if growth is None else growth < GROWTH_LIMIT_MIB * 1024,
            )
        )
    return found


def row(
    rows: list[dict],
    server: str,
    config: str = "default",
    transport: str = "stdio",
    era: str = "legacy",
    window: int = WIDE,
) -> dict | None:
    """The run of `server` in `config` on `transport` in `era` with `window` in flight (one
    session), at 64 B."""
    for r in rows:
        if (r["server"], r["config"], r["transport"], r["era"], r["concurrency"], r["payload"]) == (
            server,
            config,
            transport,
            era,
            window,
            SMALL,
        ) and r.get("sessions", 1) in (None, 1):
            return r
    return None


def binding_targets(rows: list[dict]) -> list[Target]:
    """The Python server's own targets: what a call costs it, and its speed against the
    official TypeScript SDK's (the duels are `DUELS`)."""
    python = row(rows, "oxmcp-python")
    cpu = python and python.get("server_cpu_us_per_call")
    return [
        Target(
            f"oxmcp-python stdio: server CPU/call ≤ 50 µs at {WIDE} in flight",
            python,
            None,
            "not measured" if cpu is None else f"{cpu:.1f} µs",
            None if cpu is None else cpu <= 50,
        ),
        ratio_target(
            "oxmcp-python stdio: ≥ official-ts",
            best(rows, "stdio", server="oxmcp-python"),
            best(rows, "stdio", server="official-ts"),
            1.0,
        ),
    ]


def duel_target(duel: tuple, pairs: list[list[dict]]) -> Target:
    """A duel's target (see `DUELS`): the median over `pairs` (the main runs first) of ours'
    throughput over theirs'."""
    goal, (ours, ours_config), (theirs, theirs_config), transport, window, factor = duel
    measured = [
        (mine, other)
        for rows in pairs
        if (mine := row(rows, ours, ours_config, transport, window=window))
        and (other := row(rows, theirs, theirs_config, transport, window=window))
    ]
    return paired_target(goal, measured, "calls_per_s", lambda ratio: ratio >= factor)


def era_targets(pairs: list[list[dict]]) -> list[Target]:
    """Each oxmcp server's modern calls at most 10 % more server CPU than its legacy ones,
    and the Node server's modern throughput within 15 % of its legacy one: the median
    ratio of the alternating pairs of runs (`pairs`, the main runs first)."""
    found = []
    for server in ("oxmcp-rust", "oxmcp-python", "oxmcp-node"):
        for transport in ("stdio", "http"):
            goal = f"{server} {transport}: modern server CPU/call ≤ 1.10x legacy"
            found.append(era_target(goal, pairs, server, transport, "server_cpu_us_per_call", lambda r: r <= 1.10))
    goal = "oxmcp-node stdio: modern throughput within 15 % of legacy"
    found.append(era_target(goal, pairs, "oxmcp-node", "stdio", "calls_per_s", lambda r: r >= 0.85))
    return found


def era_target(
    goal: str, pairs: list[list[dict]], server: str, transport: str, key: str, met: Callable[[float], bool]
) -> Target:
    """`goal` for `server` on `transport`: the median over `pairs` of the modern run's `key`
    over the legacy run's."""
    measured = [
        (modern, legacy)
        for rows in pairs
        if (legacy := row(rows, server, transport=transport))
        and (modern := row(rows, server, transport=transport, era="modern"))
    ]
    return paired_target(goal, measured, key, met)


def paired_target(goal: str, measured: list[tuple[dict, dict]], key: str, met: Callable[[float], bool]) -> Target:
    """`goal` met by the median over the pairs of runs `measured` of the first run's `key`
    over the second's."""
    measured = [(first, second) for first, second in measured if first.get(key) and second.get(key)]
    if not measured:
        return Target(goal, None, None, "not measured", None)
    ratios = sorted(first[key] / second[key] for first, second in measured)
    median = statistics.median(ratios)
    each = ", ".join(f"{ratio:.2f}" for ratio in ratios)
    first, second = measured[0]
    return Target(
        goal, first, second, f"{median:.2f}x (median of {len(ratios)} alternating pairs: {each})", met(median)
    )


# Peak memory with 64 KiB payloads may exceed that with 64 B by this much at most: 32 in
# flight, each held a few times over (request, arguments, result, answer), with room to spare.
GROWTH_LIMIT_MIB = 32


def peak_growth(rows: list[dict], server: str) -> int | None:
    """The largest growth of `server`'s peak RSS (KiB) from 64 B to 64 KiB payloads, on one transport."""
    growths = []
    for transport in ("stdio", "http"):
        peaks = {
            size: [
                r["server_peak_rss_kib"]
                for r in rows
                if (r["server"], r["transport"], r["payload"]) == (server, transport, size)
                and r.get("server_peak_rss_kib")
            ]
            for size in (SMALL, LARGE)
        }
        if peaks[SMALL] and peaks[LARGE]:
            growths.append(max(peaks[LARGE]) - min(peaks[SMALL]))
    return max(growths, default=None)


def versions() -> str:
    """The versions of what ran, as one sentence."""
    found = [f"Python {platform.python_version()}"]
    for command, label in (([NODE, "--version"], "Node"), (["rustc", "--version"], "")):
        try:
            found.append(f"{label} {subprocess.run(command, capture_output=True, text=True).stdout.strip()}".strip())
        except OSError:
            pass
    lock = SERVERS / "rmcp" / "Cargo.lock"
    if match := re.search(r'name = "rmcp"\nversion = "([^"]+)"', lock.read_text() if lock.exists() else ""):
        found.append(f"rmcp {match[1]}")
    sdk = ROOT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
    if sdk.exists():
        found.append(f"@modelcontextprotocol/sdk {json.loads(sdk.read_text())['version']}")
    mcp = subprocess.run(
        [str(PYTHON), "-c", "import importlib.metadata as m; print(m.version('mcp'))"], capture_output=True, text=True
    ).stdout.strip()
    if mcp:
        found.append(f"mcp (Python) {mcp}")
    return ", ".join(found)


def markdown(results: list[dict], skipped: list[tuple[Setup, str]], failures: list[str]) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    fmt = lambda v, f="{:.0f}": "-" if v is None else f.format(v)  # noqa: E731
    lines = [
        "# Benchmark results",
        "",
        f"Generated by `make bench` (`tests/bench/run.py`) on {now}: {platform.platform()}, "
        f"{os.cpu_count()} cores; {versions()}.",
        "",
        "Every server exposes the same `echo(text)` tool, written as its SDK's users would "
        "(`tests/bench/servers/`). `oxmcp bench` checks every answer; a run with errors is marked failed. "
        "Server CPU per call is the server process's CPU time divided by the calls, which still compares "
        "fairly when the two cores are saturated by server plus driver. Each oxmcp server's eras are "
        f"compared over {ERA_PAIRS} alternating legacy/modern pairs of runs, by the median ratio, and so "
        "are the servers a target sets one against the other at the same window (the Node server one "
        "call at a time and over HTTP against the official SDK, the Python server's `async def` handlers "
        "against its `def` ones): one pair, seconds apart on this shared machine, swings by 15 %.",
        "",
        "![throughput](throughput.png)",
        "",
        "## Targets",
        "",
        "Measured at 64 B payloads with 32 in flight (stdio) or 32 workers (HTTP), the best configuration "
        "and era of each server against the best of the peers. What each feature costs a call (an "
        "authorization check, a task run, the Redis store, tight HTTP limits, each era) is counted in "
        "instructions, with its target, in [COSTS.md](COSTS.md) (`make bench-costs`).",
        "",
        "| target | ours | against | measured | |",
        "|---|---|---|---|---|",
    ]
    for t in targets(results):
        verdict = {True: "met", False: "**missed**", None: "-"}[t.met if t.met is None else bool(t.met)]
        lines.append(f"| {t.goal} | {who(t.ours)} | {who(t.theirs)} | {t.measured} | {verdict} |")
    lines += [
        "",
        "## All runs",
        "",
        "`vs best peer`: calls/s over the fastest non-oxmcp server on the same transport, payload and window.",
        "",
        "| server | config | transport | era | payload B | in flight | sessions | calls/s | vs best peer | "
        "p50 µs | p90 µs | p99 µs | server CPU µs/call | driver CPU µs/call | peak RSS KiB | start-up ms | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows = throughput_rows(results)
    for r in (r for r in results if "calls_per_s" in r):
        peer = best(rows, r["transport"], r["payload"], r["concurrency"])
        vs = None if peer is None else r["calls_per_s"] / peer["calls_per_s"]
        sessions = r["sessions"] if r["transport"] == "http" and r["era"] == "legacy" else None
        cells = [
            r["server"],
            r["config"],
            r["transport"],
            r["era"],
            r["payload"],
            r["concurrency"],
            fmt(sessions),
            fmt(r["calls_per_s"]),
            fmt(vs, "{:.2f}x"),
            *(fmt(r[k]) for k in ("p50_us", "p90_us", "p99_us")),
            fmt(r["server_cpu_us_per_call"], "{:.1f}"),
            fmt(r["driver_cpu_us_per_call"], "{:.1f}"),
            fmt(r["server_peak_rss_kib"]),
            fmt(r.get("startup_ms"), "{:.1f}"),
            f"{r['errors']}{' (failed)' if r.get('failed') else ''}",
        ]
        lines.append(f"| {' | '.join(str(c) for c in cells)} |")
    idle = [r for r in results if "idle_session_kib" in r]
    if idle:
        lines += [
            "",
            "## Idle legacy HTTP sessions",
            "",
            "| server | config | sessions | KiB per session |",
            "|---|---|---|---|",
        ]
        lines += [f"| {r['server']} | {r['config']} | {r['sessions']} | {r['idle_session_kib']:.1f} |" for r in idle]
    if failures:
        lines += ["", "## Failed (no figures)", ""]
        lines += [f"- {label}" for label in failures]
    if skipped:
        lines += ["", "## Skipped", ""]
        lines += [f"- {s.server} [{s.config}] {s.transport}: {why}" for s, why in skipped]
    return "\n".join(lines) + "\n"


def plot(results: list[dict]) -> None:
    """Throughput at the comparison point, one panel per transport, oxmcp in its own colour."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    rows = throughput_rows(results)
    panels = [
        (t, sorted((r for r in rows if main_window(r, t)), key=lambda r: r["calls_per_s"])) for t in ("stdio", "http")
    ]
    fig, axes = plt.subplots(1, 2, figsize=(14, 6))
    for ax, (transport, chosen) in zip(axes, panels, strict=True):
        labels = [
            f"{r['server']} [{r['config']}] {r['era']}"
            + (f", {r['sessions']} sessions" if transport == "http" and r["era"] == "legacy" else "")
            for r in chosen
        ]
        colours = ["tab:orange" if is_oxmcp(r) else "tab:gray" for r in chosen]
        ax.barh(range(len(chosen)), [r["calls_per_s"] for r in chosen], color=colours)
        ax.set_yticks(range(len(chosen)), labels, fontsize=7)
        ax.set_xlabel("calls/s (higher is better)")
        ax.set_title(f"{transport}: echo, 64 B, 32 in flight")
    fig.suptitle("oxmcp (orange) against the official SDKs and rmcp (grey)")
    fig.tight_layout()
    fig.savefig(HERE / "throughput.png", dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="shorter runs, for a smoke run")
    parser.add_argument("--only", help="run only the servers whose name contains this")
    args = parser.parse_args()
    runner = Runner(args.quick)
    chosen = [setup for setup in setups() if args.only is None or args.only in setup.server]
    for setup in chosen:
        runner.run(setup)
    runner.duels(chosen)
    (HERE / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runner.results))
    (HERE / "RESULTS.md").write_text(markdown(runner.results, runner.skipped, runner.failures))
    plot(runner.results)
    failed = len([r for r in runner.results if r.get("failed")]) + len(runner.failures)
    print(
        f"{len(runner.results) + len(runner.failures) - failed} passed, {failed} failed, {len(runner.skipped)} skipped"
    )
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
