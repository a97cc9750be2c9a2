"""What one call costs the Rust fixture server, in instructions, in each era and with each
feature that must not slow the hot path: writes COSTS.md, appends the run to
costs-history.jsonl and plots every target's margin over the history (costs-history.png).

    python tests/bench/costs.py

Instructions, counted by callgrind, rather than CPU time: on a busy two-core machine they
are stable to a fraction of a percent where CPU time varies by a fifth. Each case runs
twice, with few and with many calls (64 B `echo`, 32 in flight over stdio, 32 workers over
HTTP), and the difference is divided by the difference in calls, so start-up and warm-up
cancel out. The cases:

- each era over stdio and over Streamable HTTP;
- a modern call with the Redis store configured (it must cost the same and send Redis
  nothing: the number of commands Redis processed is counted too);
- a call through the JWT check of a protected endpoint (ES256, the key known);
- a call to an HTTP server whose limits are tight (64 connections, 64 requests in flight,
  2 s to read a head or a body): the limits are always on, and their values must not
  change what a call costs;
- an echo run as a task (the call that creates it, then `tasks/get`, and `tasks/result` in
  2025-11-25) against the plain echo made by the same driver (`task_driver.py`, oxmcp's
  Python client; the Rust driver speaks only plain calls).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bindings-python" / "tests"))

from balancer import redis_server  # noqa: E402
from run import FIXTURE_SERVER, LOAD, load, start_http  # noqa: E402

ISSUER, AUDIENCE = "https://issuer.bench.invalid", "oxmcp-bench"
# Measured calls of the short and the long run of a case (the Python driver is slower).
CALLS = {"stdio": (2000, 12000), "http": (1000, 6000), "python": (500, 3000)}
TASK_DRIVER = HERE / "task_driver.py"


@dataclass
class Case:
    """One configuration of the server, measured in one era on one transport."""

    transport: str
    era: str
    feature: str = ""
    env: dict[str, str] = field(default_factory=dict)
    driver_args: tuple[str, ...] = ()
    #: With `task_driver.py` in this mode ("plain" or "task") rather than the Rust driver
    #: (stdio only).
    python_driver: str | None = None

    @property
    def name(self) -> str:
        return f"{self.transport} {self.era}" + (f", {self.feature}" if self.feature else "")


@dataclass
class Target:
    """A limit on the cost of `case` over the cost of `base`."""

    label: str
    case: str
    base: str
    limit: float


def instructions(report: Path) -> int:
    for line in report.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise AssertionError(f"{report} has no totals")


def callgrind(out: Path) -> list[str]:
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]


def run_once(case: Case, calls: int, out: Path) -> None:
    """The server under callgrind, driven for `calls` measured calls; callgrind writes `out`
    when the server exits."""
    env = {**os.environ, **case.env}
    common = ["--era", case.era, "--calls", str(calls), *case.driver_args]
    if case.python_driver:
        command = [sys.executable, str(TASK_DRIVER), *common, "--warmup", "200", "--mode", case.python_driver]
        result = subprocess.run(
            [*command, "--", *callgrind(out), str(FIXTURE_SERVER)],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )
        errors = json.loads(result.stdout.strip().splitlines()[-1])["errors"] if result.stdout.strip() else None
    elif case.transport == "stdio":
        command = [*callgrind(out), str(FIXTURE_SERVER)]
        result = subprocess.run(
            [str(LOAD), "bench", "--json", *common, "--warmup", "1000", "--in-flight", "32", "--", *command],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        errors = json.loads(result.stdout.strip().splitlines()[-1])["errors"] if result.stdout.strip() else None
    else:
        process, url = start_http([*callgrind(out), str(FIXTURE_SERVER), "--http", "127.0.0.1:0"], env)
        try:
            report = load([*common, "--warmup", "500", "--url", url, "--concurrency", "32"])
            errors = None if report is None or report["failed"] else report["errors"]
        finally:
            # SIGTERM, not SIGKILL: callgrind writes its counts as the server exits.
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
    if errors != 0:
        raise SystemExit(f"{case.name}: the calls failed ({errors} errors)")


def measure(case: Case, directory: Path, redis_commands: Callable[[], int] | None = None) -> dict[str, float]:
    """Instructions per call (and Redis commands per call, when counted)."""
    few, many = CALLS["python" if case.python_driver else case.transport]
    counts, commands = [], []
    for calls in (few, many):
        out = directory / f"{case.transport}-{case.era}-{calls}.out"
        before = redis_commands() if redis_commands else 0
        run_once(case, calls, out)
        commands.append((redis_commands() - before) if redis_commands else 0)
        counts.append(instructions(out))
    figures = {"instructions": (counts[1] - counts[0]) / (many - few)}
    if redis_commands:
        # The store's own background commands (its subscription, its pings) come with the
        # time a run takes, not with its calls: what is left is well under one per 100 calls.
        figures["redis_commands"] = round((commands[1] - commands[0]) / (many - few), 2) + 0.0
    return figures


def commands_processed(port: int) -> int:
    """How many commands the Redis on `port` has processed."""
    stats = subprocess.run(
        ["redis-cli", "-p", str(port), "info", "stats"], capture_output=True, text=True, check=True
    ).stdout
    return next(int(line.split(":")[1]) for line in stats.splitlines() if line.startswith("total_commands_processed:"))


def jwt_setup() -> tuple[dict[str, str], str]:
    """A fresh ES256 key: the server's environment naming it, and a token it signed."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    jwk.update({"kid": "bench", "alg": "ES256", "use": "sig"})
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "bench", "iat": now, "exp": now + 3600}
    token = jwt.encode(claims, key, algorithm="ES256", headers={"kid": "bench"})
    env = {"OXMCP_AUTH_JWKS": json.dumps({"keys": [jwk]}), "OXMCP_AUTH_ISSUER": ISSUER, "OXMCP_AUTH_AUDIENCE": AUDIENCE}
    return env, token


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def write_page(
    figures: dict[str, dict[str, float]], targets: list[Target], now: str, commit: str
) -> list[dict[str, Any]]:
    rows = []
    for target in targets:
        ratio = figures[target.case]["instructions"] / figures[target.base]["instructions"]
        rows.append(
            {"target": target.label, "ratio": round(ratio, 3), "limit": target.limit, "met": ratio <= target.limit}
        )
    lines = [
        "# What a call costs",
        "",
        f"Generated by `make bench-costs` (`tests/bench/costs.py`) on {now} at commit {commit}: "
        f"{platform.platform()}, {os.cpu_count()} cores. The Rust fixture server under callgrind; "
        "instructions per 64 B `echo` call (32 in flight over stdio, 32 workers over HTTP), from the "
        "difference between a short and a long run; the rows of the Python driver are driven by "
        "`task_driver.py` (oxmcp's Python client, 32 calls at once). The history of these figures is in "
        "`costs-history.jsonl`, plotted in `costs-history.png`; where the time goes is in `PROFILE.md`.",
        "",
        "| case | instructions per call | Redis commands per call |",
        "|---|---|---|",
    ]
    for name, figure in figures.items():
        redis = figure.get("redis_commands")
        lines.append(f"| {name} | {figure['instructions']:.0f} | {'-' if redis is None else f'{redis:g}'} |")
    lines += ["", "## Targets", "", "| target | measured | limit | |", "|---|---|---|---|"]
    for row in rows:
        lines.append(
            f"| {row['target']} | {row['ratio']:.3f} | {row['limit']:.2f} | {'met' if row['met'] else 'not met'} |"
        )
    redis = figures.get("stdio modern, Redis store", {}).get("redis_commands")
    if redis is not None:
        met = "met" if redis <= 0 else "not met"
        lines.append(f"| a plain modern call sends Redis nothing | {redis:g} commands | 0 | {met} |")
    (HERE / "COSTS.md").write_text("\n".join(lines) + "\n")
    return rows


def plot_history(history: list[dict[str, Any]]) -> None:
    """Each target's margin (its limit over the measured ratio: above 1 is met, and a
    regression shows as a line going down) over the runs so far."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: costs-history.png not drawn", file=sys.stderr)
        return
    figure, axes = plt.subplots(figsize=(9, 4.5))
    labels = sorted({row["target"] for run in history for row in run["targets"]})
    for label in labels:
        points = [
            (index, row["limit"] / row["ratio"])
            for index, run in enumerate(history)
            for row in run["targets"]
            if row["target"] == label
        ]
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    axes.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    axes.set_xticks(range(len(history)), [run["commit"][:7] for run in history], rotation=45, fontsize=8)
    axes.set_ylabel("limit / measured (above 1: met)")
    axes.set_title("What a call costs: each target's margin over the runs")
    axes.legend(fontsize=7, loc="lower left")
    figure.tight_layout()
    figure.savefig(HERE / "costs-history.png", dpi=110)


def main() -> None:
    auth_env, token = jwt_setup()
    bearer = ("--bearer", token)
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        for case in [Case("stdio", "legacy"), Case("stdio", "modern"), Case("http", "legacy"), Case("http", "modern")]:
            figures[case.name] = measure(case, directory)
            print(f"{case.name}: {figures[case.name]}", file=sys.stderr)
        for era in ("legacy", "modern"):
            case = Case("http", era, "JWT check", auth_env, bearer)
            figures[case.name] = measure(case, directory)
            print(f"{case.name}: {figures[case.name]}", file=sys.stderr)
        case = Case("http", "legacy", "tight limits", {"OXMCP_HTTP_LIMITS": "tight"})
        figures[case.name] = measure(case, directory)
        print(f"{case.name}: {figures[case.name]}", file=sys.stderr)
        for era in ("legacy", "modern"):
            for mode, feature in (("plain", "plain calls, Python driver"), ("task", "task run, Python driver")):
                case = Case("stdio", era, feature, python_driver=mode)
                figures[case.name] = measure(case, directory)
                print(f"{case.name}: {figures[case.name]}", file=sys.stderr)
        with redis_server() as redis:
            case = Case("stdio", "modern", "Redis store", {"OXMCP_STORE": redis.url})
            figures[case.name] = measure(case, directory, lambda: commands_processed(redis.port))
            print(f"{case.name}: {figures[case.name]}", file=sys.stderr)
    targets = [
        Target("stdio: modern within 10 % of legacy", "stdio modern", "stdio legacy", 1.10),
        Target("HTTP: modern within 10 % of legacy", "http modern", "http legacy", 1.10),
        Target("JWT check, key known: < 10 % more (legacy)", "http legacy, JWT check", "http legacy", 1.10),
        Target("JWT check, key known: < 10 % more (modern)", "http modern, JWT check", "http modern", 1.10),
        Target("Redis store: < 10 % more for a plain modern call", "stdio modern, Redis store", "stdio modern", 1.10),
        # The connection cap, the head and body timeouts and the in-flight cap are always on;
        # tightening them, as a server on the internet would, must not cost a call.
        Target("tight HTTP limits: < 2 % more (legacy)", "http legacy, tight limits", "http legacy", 1.02),
        # A task run is three requests in 2025-11-25 and two in 2026-07-28: the task's own
        # bookkeeping may cost at most as much again as the requests.
        Target(
            "task run: at most 2 plain calls a request (legacy, 3)",
            "stdio legacy, task run, Python driver",
            "stdio legacy, plain calls, Python driver",
            6.0,
        ),
        Target(
            "task run: at most 2 plain calls a request (modern, 2)",
            "stdio modern, task run, Python driver",
            "stdio modern, plain calls, Python driver",
            4.0,
        ),
    ]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    # The code measured: what the benchmarks write (tests/bench) does not count as a change.
    commit = git("rev-parse", "HEAD") + (
        "+changes" if git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!tests/bench") else ""
    )
    rows = write_page(figures, targets, now, commit[:12])
    record: dict[str, Any] = {
        "commit": commit,
        "date": now,
        "machine": f"{platform.platform()}, {os.cpu_count()} cores",
    }
    record.update({"figures": figures, "targets": rows})
    history_file = HERE / "costs-history.jsonl"
    with history_file.open("a") as history:
        history.write(json.dumps(record) + "\n")
    plot_history([json.loads(line) for line in history_file.read_text().splitlines() if line.strip()])
    print((HERE / "COSTS.md").read_text())


if __name__ == "__main__":
    main()
