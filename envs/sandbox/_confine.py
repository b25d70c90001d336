"""The confinement half of the sandbox's child side: private mounts, network and IPC, a uid of its own, rlimits,
and an audit hook. `_runner.py` loads this file by path (it runs under `python -I`, which puts no directory on
sys.path) and calls `isolate` then `install_audit_hook` before the code under test starts; standard library only.
"""

import ctypes
import errno
import os
import re
import resource
import signal
import stat
import sys
from collections.abc import Callable

_CLONE_NEWNS, _CLONE_NEWNET, _CLONE_NEWIPC = 0x00020000, 0x40000000, 0x08000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x1000, 0x4000, 0x40000
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38
_SYS_MOUNT_SETATTR = 442  # the same number on every architecture (added in Linux 5.12)
_AT_FDCWD, _AT_RECURSIVE = -100, 0x8000
_MOUNT_ATTR_RDONLY, _MOUNT_ATTR_NOSUID = 0x1, 0x2
SHM = "/dev/shm"


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.syscall.restype = ctypes.c_long


class _MountAttr(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("attr_set", "attr_clr", "propagation", "userns_fd")]


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _encode(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_encode(source), target.encode(), _encode(fstype), flags, _encode(data)), f"mount {target}")


def _interpreter_dirs() -> dict[str, list[str]]:
    """Directories the sandbox uid cannot traverse, each with the interpreter trees beneath it.

    The interpreter often lives under a home directory of mode 0700 (pyenv under /root); those
    trees are mounted back into an empty tmpfs laid over the directory, hiding everything else.
    """
    trees = sorted({os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.base_exec_prefix)})
    trees = [t for t in trees if not any(t.startswith(other + os.sep) for other in trees)]
    hidden: dict[str, list[str]] = {}
    for tree in trees:
        parts = tree.split(os.sep)
        for depth in range(2, len(parts)):
            ancestor = os.sep.join(parts[:depth])
            if not os.stat(ancestor).st_mode & stat.S_IXOTH:
                hidden.setdefault(ancestor, []).append(tree)
                break
    return hidden


def _cap_ipc(ipc_bytes: int) -> None:
    """The new IPC namespace's SysV shared memory capped like the workdir, and few message queues (its own
    sysctls, written while still root and before the read-only pass)."""
    settings = {
        "kernel/shmmax": ipc_bytes,
        "kernel/shmall": max(1, ipc_bytes // os.sysconf("SC_PAGE_SIZE")),
        "kernel/msgmni": 16,
        "fs/mqueue/queues_max": 16,
    }
    for name, value in settings.items():
        with open(f"/proc/sys/{name}", "w") as handle:
            handle.write(str(value))


def _private_filesystem(workdir: str, uid: int, gid: int, workdir_bytes: int) -> None:
    """Private mount, network and IPC namespaces: all read-only but a fresh tmpfs workdir and /dev/shm, /proc
    showing only the sandbox uid."""
    # A new network namespace: no interface but a loopback that is down, so no network and no abstract Unix
    # socket of the host. A new IPC namespace: SysV shared memory, semaphores, message queues and POSIX message
    # queues of its own, gone with its last process.
    _check(_libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC), "unshare(CLONE_NEWNS | NEWNET | NEWIPC)")
    _cap_ipc(workdir_bytes)
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)  # nothing mounted below reaches the host
    for directory, trees in _interpreter_dirs().items():
        fds = [os.open(tree, os.O_PATH) for tree in trees]
        _mount("tmpfs", directory, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=64k")
        for tree, fd in zip(trees, fds):
            os.makedirs(tree, mode=0o755)
            _mount(f"/proc/self/fd/{fd}", tree, None, _MS_BIND | _MS_REC)
            os.close(fd)
    # hidepid: the parent's /proc/<pid>/environ and cmdline are not even listed.
    _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=invisible")
    attr = _MountAttr(_MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID, 0, 0, 0)
    _check(
        _libc.syscall(
            ctypes.c_long(_SYS_MOUNT_SETATTR),
            ctypes.c_int(_AT_FDCWD),
            b"/",
            ctypes.c_uint(_AT_RECURSIVE),
            ctypes.byref(attr),
            ctypes.c_size_t(ctypes.sizeof(attr)),
        ),
        "mount_setattr(/, read-only, recursive)",
    )
    # Mounted after the read-only pass, so they alone are writable; the workdir's size caps all the code writes.
    _mount("tmpfs", workdir, "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode=0700,uid={uid},gid={gid},size={workdir_bytes}")
    # POSIX shared memory and named semaphores (multiprocessing's locks) in a /dev/shm of its own; a /dev/mqueue
    # showing the namespace's queues, where the host has one (a missing one is not made: /dev is the host's).
    if os.path.isdir(SHM):
        _mount("tmpfs", SHM, "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode=0700,uid={uid},gid={gid},size={workdir_bytes}")
    if os.path.isdir("/dev/mqueue"):
        _mount("mqueue", "/dev/mqueue", "mqueue", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)


def _drop_privileges(uid: int, gid: int) -> None:
    """Become uid/gid for good: no capabilities, no supplementary groups, no setuid escalation."""
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    stdlib = os.path.dirname(os.__file__)
    if not os.access(stdlib, os.R_OK | os.X_OK):
        raise PermissionError(f"uid {uid} cannot read the standard library at {stdlib}")


def _die_with_parent(parent_pid: int) -> None:
    """SIGKILL when the harness's thread that started this process ends (a harness killed, or one exiting with the
    test still running), as the harness is what enforces the wall-time limit; set after the uid change, which
    clears it. A parent already gone is no one's to wait for."""
    _check(_libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent_pid:
        os._exit(1)


def _set_limits(limits: dict[str, int]) -> None:
    """Resource limits, never above a hard limit the harness itself already runs under."""

    def limit(kind: int, soft: int, hard: int) -> None:
        _, current_hard = resource.getrlimit(kind)
        if current_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, current_hard), min(hard, current_hard)
        resource.setrlimit(kind, (soft, hard))

    limit(resource.RLIMIT_CORE, 0, 0)
    # SIGXCPU at the soft limit; SIGKILL one second later if the code catches it.
    limit(resource.RLIMIT_CPU, limits["cpu_s"], limits["cpu_s"] + 1)
    limit(resource.RLIMIT_FSIZE, limits["file_size_bytes"], limits["file_size_bytes"])
    limit(resource.RLIMIT_NPROC, limits["processes"], limits["processes"])
    limit(resource.RLIMIT_AS, limits["memory_bytes"], limits["memory_bytes"])


def isolate(payload: dict, shut_host_channels: Callable[[list[str]], dict]) -> dict:
    """Everything that must hold before the code runs; returns what is in effect.

    `shut_host_channels` (`_host_channels.shut`) gets the places the code may write, while still root: the
    mqueue of the new IPC namespace can be opened only then.
    """
    workdir, uid, gid = payload["workdir"], payload["uid"], payload["gid"]
    channels = {}
    if uid is not None:
        _private_filesystem(workdir, uid, gid, payload["workdir_bytes"])
        channels = shut_host_channels([workdir, *([SHM] if os.path.isdir(SHM) else [])])
    os.chdir(workdir)  # after the mount, so the cwd is the tmpfs and not the directory it covers
    if uid is not None:
        _drop_privileges(uid, gid)
    _die_with_parent(payload["parent_pid"])
    _set_limits(payload["limits"])
    return {"uid": os.getuid(), "gid": os.getgid(), "privileges_dropped": uid is not None, **channels}


def install_audit_hook(workdir: str) -> None:
    """Refuse, from Python, file changes outside the workdir and reading any /proc/<pid>/environ.

    Defence in depth only: ctypes, a subprocess or a C extension bypasses it.
    """
    root = os.path.realpath(workdir)
    environ = re.compile(r"/proc/[^/]+/(task/[^/]+/)?environ")
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    # (index of a path argument, index of its dir_fd argument or None), per audit event.
    guarded = {
        "os.remove": ((0, 1),),
        "os.rmdir": ((0, 1),),
        "shutil.rmtree": ((0, 1),),
        "os.mkdir": ((0, 2),),
        "os.chmod": ((0, 2),),
        "os.chown": ((0, 3),),
        "os.utime": ((0, 3),),
        "os.truncate": ((0, None),),
        "os.rename": ((0, 2), (1, 3)),
        "os.link": ((1, 3),),
        "os.symlink": ((1, 2),),
    }
    realpath, join, getcwd, fsdecode, readlink = os.path.realpath, os.path.join, os.getcwd, os.fsdecode, os.readlink

    def resolve(path: str | bytes | os.PathLike[str] | os.PathLike[bytes], dir_fd: object) -> str:
        base = readlink(f"/proc/self/fd/{dir_fd}") if isinstance(dir_fd, int) and dir_fd >= 0 else getcwd()
        return realpath(join(base, fsdecode(path)))

    def inside(resolved: str) -> bool:
        return resolved == root or resolved.startswith(root + os.sep)

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, _mode, flags = args
            if isinstance(path, int):
                return  # an open file descriptor, checked when it was opened
            resolved = resolve(path, None)
            if environ.fullmatch(resolved):
                raise PermissionError(errno.EACCES, "sandbox: reading a process environment is refused", resolved)
            if flags & write_flags and not inside(resolved):
                raise PermissionError(
                    errno.EACCES, "sandbox: writing outside the working directory is refused", resolved
                )
        elif event in guarded:
            for path_index, fd_index in guarded[event]:
                path = args[path_index]
                if isinstance(path, int):
                    continue
                resolved = resolve(path, None if fd_index is None else args[fd_index])
                if not inside(resolved):
                    raise PermissionError(
                        errno.EACCES, f"sandbox: {event} outside the working directory is refused", resolved
                    )

    sys.addaudithook(hook)
