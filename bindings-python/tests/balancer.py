"""The real infrastructure of replica tests and benchmarks: a redis-server that may crash
and restart, and nginx doing plain round robin in front of replicas. Both bind to
127.0.0.1 and are stopped by the context that started them."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


def stop(process: subprocess.Popen[str], timeout: float = 5.0) -> None:
    """Waits for the process to exit, killing it if it does not in time."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[str]) -> None:
    for _ in range(200):
        if process.poll() is not None:
            raise AssertionError(f"{process.args!r} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.1):
            return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


class Redis:
    """A redis-server on a free port of 127.0.0.1 that saves nothing: a restart forgets all."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = self._start()

    def _start(self) -> subprocess.Popen[str]:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_for_port(self.port, process)
        return process

    def restart(self) -> None:
        """Kills it, as a crash would, and starts it again on its port."""
        self.process.kill()
        stop(self.process)
        self.process = self._start()


@contextlib.contextmanager
def redis_server() -> Iterator[Redis]:
    redis = Redis()
    try:
        yield redis
    finally:
        redis.process.terminate()
        stop(redis.process)


@contextlib.contextmanager
def nginx(upstreams: list[str], directory: Path) -> Iterator[str]:
    """nginx on a free port of 127.0.0.1, passing each request to the next of `upstreams`
    (URLs), in turn, without stickiness; yields the URL of its `/mcp`."""
    port = free_port()
    servers = "\n".join(f"server {url.split('/')[2]};" for url in upstreams)
    config = directory / "nginx.conf"
    config.write_text(
        f"""
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {directory}/body;
  proxy_temp_path {directory}/proxy;
  fastcgi_temp_path {directory}/fastcgi;
  uwsgi_temp_path {directory}/uwsgi;
  scgi_temp_path {directory}/scgi;
  upstream replicas {{ {servers} }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_read_timeout 300s;
    }}
  }}
}}
"""
    )
    process = subprocess.Popen(
        [shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(config), "-p", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.send_signal(signal.SIGQUIT)
        stop(process)
