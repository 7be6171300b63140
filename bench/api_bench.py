"""API benchmark: /info and /game-export against a minimal Starlette app, served the same way.

    scripts/bench api [--docs 10000] [--clients 8] [--seconds 5] [--dir DIR]
    .venv/bin/python bench/api_bench.py [same options]

A project of ``--docs`` documents (``bench/generate.py``: every collection, realistic scripts,
properties, variables, maps...) is created under a temporary ``STORYLOOM_HOME`` (deleted
at the end, whatever happens; with ``--dir DIR`` the project is created there and kept) and served
by ``ApiServer`` on a free loopback port. The reference is a minimal Starlette app whose one route
returns a constant JSON body, served by the same ``UvicornThread`` (uvicorn, h11, asyncio, no
access log) on another port of the same machine, in the same process, in the same run.

The load comes from a separate client process (so the clients do not share the servers' GIL):
``--clients`` threads, each with one keep-alive HTTP/1.1 connection, sending requests back to back
for ``--seconds`` after a short warm-up, each response read whole. Per scenario it prints
requests, requests per second, latency p50 and p99, and each as a ratio against the reference
measured just before it (latency ratio = API / reference, so higher is slower; rps ratio = API /
reference, so lower is slower). Each scenario and its reference are measured ``--repeat`` times,
alternating; the medians (of the figures and of the per-run ratios) are printed.

Scenarios:

* ``/info``;
* ``/game-export`` of an unchanged project: what a game polling for content sees (the JSON text is
  reused until the next committed change, with a fresh ``_meta.exportedAt``);
* ``/game-export`` rebuilt on every request (cache off): what the first request after each change
  costs. Each client sends ``--cold-requests`` requests instead of running for ``--seconds``.

Then the memory scenario: ``storyloom serve`` of the project as its own process (so nothing but
the server is in it), asked for ``/game-export`` by ``--clients`` clients at once, twice each, in
``--memory-rounds`` rounds with a committed change after each (so answers come both from the
answer cache and from rebuilds); its RSS after the first export, after the last, and its peak
(``VmHWM``). This process's own RSS (generator, both in-process servers) is printed for
information.

Targets (issue 16): ``/info`` at least 0.8x the reference's requests per second; the served
project's memory grows by at most 150 MB after its first ``/game-export`` however many it serves,
and stays under 600 MB. Exit status 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.report import Check, check_docs, machine, storyloom_home, verdict  # noqa: E402

KEY = "bench-key-" + "0" * 32
INFO_TARGET = 0.8
GROWTH_TARGET_MB = 150
SERVE_PEAK_TARGET_MB = 600


# ---------------------------------------------------------------------- client process


def _read_response(stream: Any) -> tuple[int, int]:
    """Read one HTTP/1.1 response from ``stream``; returns (status, body bytes)."""
    status_line = stream.readline()
    if not status_line:
        raise ConnectionError("connection closed")
    status = int(status_line.split()[1])
    length: int | None = None
    chunked = False
    while True:
        line = stream.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if chunked:
        total = 0
        while True:
            size = int(stream.readline().split(b";")[0], 16)
            if size == 0:
                stream.readline()
                return status, total
            total += len(stream.read(size))
            stream.readline()
    body = stream.read(length or 0)
    return status, len(body)


def _client_worker(port: int, path: str, warmup: int, count: int | None, start: threading.Barrier,
                   clock: dict[str, float], out: list[float], errors: list[str]) -> None:
    """One client: warm up, wait for the others, then send requests back to back on one connection.

    Runs until ``clock["deadline"]`` (set by the main thread right after the barrier) or, with
    ``count``, for that many requests.
    """
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-api-key: {KEY}\r\n"
               "Accept: application/json\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        stream = sock.makefile("rb", buffering=1 << 20)
        for _ in range(warmup):
            sock.sendall(request)
            _read_response(stream)
        start.wait()
        done = 0
        while (count is None and time.perf_counter() < clock["deadline"]) or (count is not None and done < count):
            began = time.perf_counter()
            sock.sendall(request)
            status, _size = _read_response(stream)
            out.append(time.perf_counter() - began)
            done += 1
            if status != 200:
                errors.append(str(status))


def run_clients(port: int, path: str, clients: int, seconds: float, count: int | None, warmup: int) -> dict:
    """Client-process side: ``clients`` threads on ``path``; returns every latency and the elapsed time."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []
    start = threading.Barrier(clients + 1)
    clock = {"deadline": float("inf")}
    workers = [
        threading.Thread(target=_client_worker,
                         args=(port, path, warmup, count, start, clock, latencies[i], errors))
        for i in range(clients)
    ]
    for worker in workers:
        worker.start()
    start.wait()  # every client has warmed up
    began = time.perf_counter()
    clock["deadline"] = began + seconds
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - began
    return {"latencies": [x for per in latencies for x in per], "elapsed": elapsed, "errors": errors}


def client_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args(argv)
    result = run_clients(args.port, args.path, args.clients, args.seconds, args.count, args.warmup)
    json.dump(result, sys.stdout)
    return 0


# ---------------------------------------------------------------------- server side


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def measure(port: int, path: str, args: argparse.Namespace, count: int | None = None, warmup: int = 3) -> dict:
    command = [sys.executable, __file__, "--client", "--port", str(port), "--path", path,
               "--clients", str(args.clients), "--seconds", str(args.seconds), "--warmup", str(warmup)]
    if count is not None:
        command += ["--count", str(count)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    raw = json.loads(output)
    latencies = raw["latencies"]
    if raw["errors"]:
        raise SystemExit(f"{path}: {len(raw['errors'])} non-200 answers, e.g. {raw['errors'][:3]}")
    return {
        "requests": len(latencies),
        "rps": len(latencies) / raw["elapsed"],
        "p50": percentile(latencies, 50) * 1000,
        "p99": percentile(latencies, 99) * 1000,
    }


def reference_app() -> Any:
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    body = {"app": "reference", "ok": True}

    async def constant(request: Any) -> JSONResponse:
        return JSONResponse(body)

    return Starlette(routes=[Route("/{path:path}", constant)])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--client" in argv:
        return client_main([a for a in argv if a != "--client"])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--cold-requests", type=int, default=2, help="requests per client without the cache")
    parser.add_argument("--dir", help="STORYLOOM_HOME to use, kept afterwards (default: a temporary directory, "
                                      "deleted at the end)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="measure each scenario (and its reference) this many times; medians are printed")
    parser.add_argument("--only", choices=["info", "export", "cold", "memory"], action="append",
                        help="run only these scenarios (repeatable; default: all)")
    parser.add_argument("--memory-rounds", type=int, default=4,
                        help="memory scenario: rounds of 2 x --clients exports, a committed change after each")
    args = parser.parse_args(argv)
    check_docs(args.docs)
    with storyloom_home(args.dir, "storyloom-api-bench-"):
        return run_benchmark(args)


def run_benchmark(args: argparse.Namespace) -> int:
    """Create the project under ``$STORYLOOM_HOME``, serve it, measure; everything stopped at the end."""
    from bench.generate import generate
    from storyloom.api import ApiServer, StaticProjectProvider
    from storyloom.api.server import bind_socket
    from storyloom.api.serving import UvicornThread
    from storyloom.export.answers import ExportCache
    from storyloom.project.manager import ProjectManager

    class Options:
        api_key = KEY
        api_port = 0
        username = "bench"

    project = ProjectManager().create(f"api-bench-{random.randrange(10**9)}")
    running: list[Any] = []
    try:
        generate(args.docs).fill(project)
        reference = UvicornThread(reference_app(), bind_socket("127.0.0.1", 0), name="reference")
        running.append(reference)
        reference.start()
        reference_port = reference.sock.getsockname()[1]
        api = ApiServer(StaticProjectProvider(project), Options())
        running.append(api)
        api.start()
        cold = ApiServer(StaticProjectProvider(project), Options(), exports=ExportCache(reuse=False))
        running.append(cold)
        cold.start()
        return verdict("api", report(args, project, api, cold, reference_port))
    finally:
        for server in reversed(running):
            server.stop()
        project.close()


def report(args: argparse.Namespace, project: Any, api: Any, cold: Any, reference_port: int) -> list[Check]:
    rss_before = rss_mb()
    size = len(_get(api.port or 0, "/game-export").encode("utf-8"))
    rss_first = rss_mb()
    print(machine())
    print(f"project: {project.store.info()['doc_count']:,} documents; /game-export is {size / 1e6:.1f} MB; "
          f"{args.clients} concurrent clients (one process, one keep-alive connection each)")
    print()
    header = (f"{'scenario':<34}{'requests':>9}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}"
              f"{'rps ratio':>11}{'p50 ratio':>11}{'p99 ratio':>11}")
    print(header)
    print("-" * len(header))
    scenarios = [
        ("info", "/info", api.port, "/info", None),
        ("export", "/game-export (unchanged project)", api.port, "/game-export", None),
        ("cold", "/game-export (rebuilt each time)", cold.port, "/game-export", args.cold_requests),
    ]
    scenarios = [s for s in scenarios if not args.only or s[0] in args.only]
    checks: list[Check] = []
    for key, name, port, path, count in scenarios:
        runs = []
        for _ in range(1 if count else args.repeat):
            ref = measure(reference_port, path, args)
            got = measure(port, path, args, count=count, warmup=0 if count else 3)
            runs.append((got, ref))
        med = {k: statistics.median(g[k] for g, _ in runs) for k in ("requests", "rps", "p50", "p99")}
        ref_med = {k: statistics.median(r[k] for _, r in runs) for k in ("requests", "rps", "p50", "p99")}
        ratio = {k: statistics.median(g[k] / r[k] for g, r in runs) for k in ("rps", "p50", "p99")}
        print(f"{'  reference (constant JSON)':<34}{ref_med['requests']:>9.0f}{ref_med['rps']:>10.0f}"
              f"{ref_med['p50']:>10.2f}{ref_med['p99']:>10.2f}")
        print(f"{name:<34}{med['requests']:>9.0f}{med['rps']:>10.1f}{med['p50']:>10.2f}{med['p99']:>10.2f}"
              f"{ratio['rps']:>10.3f}x{ratio['p50']:>10.1f}x{ratio['p99']:>10.1f}x")
        if key == "info":
            checks.append(Check("/info req/s / reference's", ratio["rps"], INFO_TARGET, ">="))
    rss_last = rss_mb()
    print(f"\nthis process (benchmark, generator and both servers) RSS: {rss_before:.0f} MB before the first "
          f"/game-export, {rss_first:.0f} MB after it, {rss_last:.0f} MB after every scenario (information)")
    if not args.only or "memory" in args.only:
        checks += serve_memory(args, project)
    return checks


def _status_mb(pid: int, field: str) -> float:
    """``VmRSS`` or ``VmHWM`` (peak) of process ``pid`` in MB (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def serve_memory(args: argparse.Namespace, project: Any) -> list[Check]:
    """``storyloom serve`` of the project as its own process (nothing else in it), asked for
    ``/game-export`` again and again: unchanged (the answer cache), after a committed change each
    round (a rebuild), by ``--clients`` clients at once. Its RSS after the first export, after
    all of them, and its peak."""
    import os
    import tempfile

    import httpx

    import storyloom

    src = str(Path(storyloom.__file__).resolve().parent.parent)
    home = os.environ.get("STORYLOOM_HOME", "")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, STORYLOOM_API_KEY=KEY, STORYLOOM_HOME=home,
               PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p))
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below
    server = subprocess.Popen([sys.executable, "-m", "storyloom", "serve", project.id, "--port", str(port)],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/game-export"
    headers = {"x-api-key": KEY}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/info", headers=headers, timeout=5).raise_for_status()
                break
            except (httpx.HTTPError, OSError):
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    output = log.read()[-2000:].decode(errors="replace")
                    raise SystemExit(f"storyloom serve did not start: {output}") from None
                time.sleep(0.2)
        started = _status_mb(server.pid, "VmRSS")

        def fetch() -> int:
            with httpx.stream("GET", url, headers=headers, timeout=600) as answer:
                answer.raise_for_status()
                return sum(len(chunk) for chunk in answer.iter_bytes())

        size = fetch()
        first = _status_mb(server.pid, "VmRSS")
        served = 1
        item = next(row["doc"] for row in project.store.all_docs(include_docs=True)["rows"]
                    if row["doc"].get("type") == "Item")
        for round_ in range(args.memory_rounds):
            with ThreadPoolExecutor(args.clients) as pool:
                sizes = list(pool.map(lambda _: fetch(), range(args.clients * 2)))
            served += len(sizes)
            item["name"] = f"renamed {round_}"  # a committed change: the next answers are rebuilt
            item["_rev"] = project.store.put(item)["rev"]
        last = _status_mb(server.pid, "VmRSS")
        peak = _status_mb(server.pid, "VmHWM")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    print(f"storyloom serve: {served} /game-export answers of {size / 1e6:.1f} MB ({args.memory_rounds} rounds of "
          f"{args.clients * 2} by {args.clients} clients, a committed change after each); RSS {started:.0f} MB "
          f"started, {first:.0f} MB after the first export, {last:.0f} MB after the last, peak {peak:.0f} MB")
    return [
        Check("serve: RSS growth after the first /game-export", last - first, GROWTH_TARGET_MB, "<=", " MB",
              note=f"{first:.0f} -> {last:.0f} MB"),
        Check("serve: peak RSS", peak, SERVE_PEAK_TARGET_MB, "<=", " MB", note=f"{served} exports"),
    ]


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux ``VmRSS``; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _get(port: int, path: str) -> str:
    import httpx

    response = httpx.get(f"http://127.0.0.1:{port}{path}", headers={"x-api-key": KEY}, timeout=120)
    response.raise_for_status()
    return response.text


if __name__ == "__main__":
    sys.exit(main())
