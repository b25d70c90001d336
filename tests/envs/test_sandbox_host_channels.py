"""The sandbox's code reaches no host process and leaves nothing on the host: SysV shared memory, semaphores and
message queues, POSIX message queues and shared memory are its own (they work inside, and `ipcs`, mq_open and
/dev/shm on the host show nothing after); Unix sockets served outside (by path, mode 0777; abstract; a datagram
socket reached from a socketpair) and a named pipe read outside get nothing (each server's log stays empty).
The earlier escapes (files, processes, the network, the API key) are tested in test_sandbox.py."""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import select
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from envs.sandbox import AssertTests, SandboxLimits, run_tests
from envs.sandbox._uids import POOL_SIZE, UID_BASE

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox's namespaces need root")

IPC_KEY = 0x4747_0047
QUEUE = b"/harness-sandbox-test-queue"
HOSTILE = """\
import ctypes, json, os, socket, subprocess
from multiprocessing import shared_memory
libc = ctypes.CDLL(None, use_errno=True)
CREATE = 0o1000 | 0o666
made = {{
    "shm": libc.shmget({key}, 1 << 20, CREATE),
    "sem": libc.semget({key}, 1, CREATE),
    "msg": libc.msgget({key}, CREATE),
    "mq": libc.mq_open({queue!r}, os.O_CREAT | os.O_RDWR, 0o666, None),
}}
try:
    made["posix_shm"] = shared_memory.SharedMemory(name={shm!r}, create=True, size=4096).size
except OSError:
    made["posix_shm"] = -1

def reach(address):
    try:
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(2)
        client.connect(address)
        client.sendall(b"escaped")
        return client.recv(64).decode()
    except OSError as error:
        return type(error).__name__

def datagram(address):
    try:
        one, _ = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        one.sendto(b"escaped", address)
        return "sent"
    except OSError as error:
        return type(error).__name__

one, other = socket.socketpair()
one.sendall(b"pair")
fifo = subprocess.run("echo escaped > {fifo}", shell=True, capture_output=True, text=True)
print(json.dumps({{
    "made": made,
    "path": reach({path!r}),
    "abstract": reach({abstract!r}),
    "datagram": datagram({datagram!r}),
    "fifo": fifo.returncode,
    "pair": other.recv(4).decode(),
}}))
"""


@dataclass
class HostServers:
    """A stream socket (by path and abstract), a datagram socket and a named pipe, each logging what it receives."""

    folder: Path
    abstract: str = field(default_factory=lambda: f"\0harness-sandbox-test-{secrets.token_hex(4)}")
    log: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return str(self.folder / "stream.sock")

    @property
    def datagram(self) -> str:
        return str(self.folder / "datagram.sock")

    @property
    def fifo(self) -> str:
        return str(self.folder / "fifo")


@contextmanager
def _serving(servers: HostServers) -> Iterator[None]:
    stop = threading.Event()
    listeners = []
    for address in (servers.path, servers.abstract):
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(address)
        listener.listen()
        listeners.append(listener)
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(servers.datagram)
    for path in (servers.path, servers.datagram):
        os.chmod(path, 0o777)
    os.mkfifo(servers.fifo, 0o666)
    fifo = os.open(servers.fifo, os.O_RDONLY | os.O_NONBLOCK)
    named = {fifo: "fifo", receiver.fileno(): "datagram", **{s.fileno(): "stream" for s in listeners}}

    def serve() -> None:
        while not stop.is_set():
            for fd in select.select(list(named), [], [], 0.05)[0]:
                if named[fd] == "stream":
                    connection, _ = next(s for s in listeners if s.fileno() == fd).accept()
                    connection.settimeout(2)
                    servers.log.append(f"stream: {connection.recv(64)!r}")
                    connection.sendall(b"the host answers")
                    connection.close()
                elif data := os.read(fd, 64):
                    servers.log.append(f"{named[fd]}: {data!r}")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        for listener in [*listeners, receiver]:
            listener.close()
        os.close(fifo)


@pytest.fixture
def host_servers() -> Iterator[HostServers]:
    folder = Path(tempfile.mkdtemp(prefix="harness-sandbox-host-"))
    folder.chmod(0o755)  # the sandbox uid can reach what is inside, as it could a daemon's socket
    servers = HostServers(folder)
    try:
        with _serving(servers):
            yield servers
    finally:
        shutil.rmtree(folder)


def _sysv_of_sandbox_uids() -> list[str]:
    """The host's SysV objects owned by a sandbox uid (what `ipcs` lists, read from where it reads)."""
    found = []
    for kind in ("shm", "sem", "msg"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        header = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(header, line.split()))
            if UID_BASE <= int(row["uid"]) < UID_BASE + POOL_SIZE:
                found.append(f"{kind} {row['key']}")
    return found


@pytest.fixture
def host_ipc() -> Iterator[None]:
    """Nothing left behind by a failing run either: the test's key and queue removed from the host after."""
    try:
        yield
    finally:
        key = hex(IPC_KEY)
        subprocess.run(["ipcrm", "-M", key, "-S", key, "-Q", key], check=False, capture_output=True)
        ctypes.CDLL(None).mq_unlink(QUEUE)


def test_ipc_and_sockets_reach_no_host_process(host_servers: HostServers, host_ipc: None) -> None:
    probe = socket.socket(socket.AF_UNIX)
    probe.connect(host_servers.path)  # the server answers a host process: its log proves it listens
    probe.sendall(b"from the host")
    assert probe.recv(64) == b"the host answers"
    probe.close()
    host_servers.log.clear()
    shm_name = f"harness-sandbox-test-{secrets.token_hex(4)}"
    code = HOSTILE.format(
        key=IPC_KEY,
        queue=QUEUE,
        shm=shm_name,
        path=host_servers.path,
        abstract=host_servers.abstract,
        datagram=host_servers.datagram,
        fifo=host_servers.fifo,
    )
    verdict = run_tests(code, AssertTests(asserts=["assert True"]), SandboxLimits(timeout_s=15))
    assert verdict.passed, verdict.summary + verdict.stderr.text
    answers = json.loads(verdict.stdout.text)
    assert host_servers.log == []
    assert hex(IPC_KEY) not in subprocess.run(["ipcs"], capture_output=True, text=True, check=True).stdout
    assert _sysv_of_sandbox_uids() == []
    assert ctypes.CDLL(None).mq_open(QUEUE, os.O_RDONLY) == -1  # no such queue on the host
    assert shm_name not in os.listdir("/dev/shm")
    assert answers["path"] == answers["abstract"] == answers["datagram"] == "PermissionError"
    assert answers["fifo"] != 0
    assert all(handle >= 0 for handle in answers["made"].values()), answers  # IPC works inside the sandbox
    assert answers["pair"] == "pair"  # a connected stream pair too (multiprocessing.Pipe)
    assert verdict.isolation is not None and verdict.isolation.unix_sockets_refused
    assert verdict.isolation.writes_outside_refused
    assert stat.S_ISFIFO(os.stat(host_servers.fifo).st_mode)
