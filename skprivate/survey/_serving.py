"""Running the collection app: one uvicorn process, or several on one socket.

The parent binds the listening socket, so a port already in use is an error
before any worker starts, and ``port=0`` gives one free port to every
worker.  With several workers, each is a fresh interpreter (``spawn``) that
builds its own app and serves the inherited socket; the kernel hands each
new connection to one of them.  The parent prints ``ready: <url>`` once every
worker accepts connections, forwards SIGINT and SIGTERM to the workers, and
stops them all when one exits on its own.  A worker whose parent disappears
(killed with SIGKILL) stops by itself.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["listen", "run_many", "run_one", "url_of"]

BACKLOG = 4096


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port=0``: a free port)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        raise OSError(
            exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}"
        ) from None
    return sock


def url_of(host: str, sock: socket.socket) -> str:
    """``http://host:port`` of a listening socket."""
    port = sock.getsockname()[1]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _server(app: Any, options: dict, on_ready: Callable[[], None]):
    """A uvicorn server that calls ``on_ready`` once it accepts connections."""
    import uvicorn

    class ReadyServer(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                on_ready()

    config = uvicorn.Config(
        app,
        access_log=False,
        server_header=False,
        backlog=BACKLOG,
        log_level=options.get("log_level", "info"),
    )
    return ReadyServer(config)


def run_one(
    make_app: Callable[[], Any],
    sock: socket.socket,
    options: dict,
    on_ready: Callable[[], None],
) -> None:
    """Serve ``make_app()`` on ``sock`` in this process until interrupted."""
    _server(make_app(), options, on_ready).run(sockets=[sock])


def _watch_parent(server, parent: int) -> None:
    while not server.should_exit:
        if os.getppid() != parent:
            server.should_exit = True
            return
        time.sleep(0.5)


def _worker(make_app, sock, options: dict, index: int, ready, parent: int) -> None:
    """Body of a worker process (module level, so that spawn can start it)."""
    server = _server(make_app(), options, lambda: ready.put(index))
    threading.Thread(
        target=_watch_parent, args=(server, parent), name="parent-watch", daemon=True
    ).start()
    # uvicorn re-raises the SIGINT it handled, once it has stopped
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])


def run_many(
    make_app: Callable[[], Any],
    sock: socket.socket,
    workers: int,
    options: dict,
    on_ready: Callable[[], None],
) -> None:
    """Serve ``make_app()`` from ``workers`` processes sharing ``sock``.

    Returns when the workers stopped after SIGINT or SIGTERM; raises
    ``RuntimeError`` when a worker exits on its own (the others are stopped).
    ``make_app`` and ``options`` must pickle: each worker builds its app.
    """
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    procs = [
        context.Process(
            target=_worker,
            args=(make_app, sock, options, i, ready, os.getpid()),
            name=f"survey-worker-{i + 1}",
        )
        for i in range(workers)
    ]
    stopping = threading.Event()

    def stop(signum=None, frame=None) -> None:
        stopping.set()
        for proc in procs:
            if proc.pid is not None and proc.exitcode is None:
                proc.terminate()  # SIGTERM: uvicorn finishes open requests

    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {
            sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)
        }
    try:
        for proc in procs:
            if not stopping.is_set():
                proc.start()
        started: set[int] = set()
        while len(started) < workers and not stopping.is_set():
            _check_alive(procs, "before it accepted connections")
            try:
                started.add(ready.get(timeout=0.2))
            except queue.Empty:
                continue
        if not stopping.is_set():
            on_ready()
        from multiprocessing.connection import wait

        while not stopping.is_set():
            wait([proc.sentinel for proc in procs], timeout=1.0)
            if not stopping.is_set():
                _check_alive(procs, "")
        stop()  # workers started while a signal arrived
    except BaseException:
        stop()
        raise
    finally:
        for proc in procs:
            if proc.pid is not None:
                proc.join(60)
                if proc.exitcode is None:
                    proc.kill()
                    proc.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        ready.close()


def _check_alive(procs, when: str) -> None:
    for proc in procs:
        if proc.exitcode is not None:
            detail = f" {when}" if when else ""
            raise RuntimeError(
                f"{proc.name} exited with code {proc.exitcode}{detail}; the "
                "other workers were stopped (its messages are above)."
            )
