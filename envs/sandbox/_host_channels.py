"""The channels from the sandbox to host processes that namespaces do not close, closed by the kernel.

A pathname Unix socket is found through the filesystem, which the sandbox sees (read-only, but connect() needs no
write access to the mount), and a named pipe too: a seccomp filter refuses creating Unix sockets, and Landlock
(where the kernel has it) refuses opening any file for writing outside the working directory, the private
/dev/shm and the harmless devices. `_runner.py` loads this file by path beside `_confine.py` and calls `shut` once
the uid is dropped (both need PR_SET_NO_NEW_PRIVS, which `_confine` sets); standard library only.
"""

import ctypes
import errno
import os
import platform
import struct
import sys

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_SECCOMP_RET_ALLOW, _SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS_W, _JEQ_K, _JGE_K, _AND_K, _RET_K = 0x20, 0x15, 0x35, 0x54, 0x06
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (the low word of an argument: little-endian)
_AF_UNIX, _SOCK_DGRAM, _SOCK_TYPE_MASK = 1, 2, 0xF
_X32_SYSCALL_BIT = 0x40000000
_IO_URING_SETUP = 425  # its socket and connect operations would bypass the filter; the same number everywhere
# machine -> (AUDIT_ARCH_*, socket, socketpair, whether the x32 ABI shares the arch)
_ARCHES = {
    "x86_64": (0xC000003E, 41, 53, True),
    "aarch64": (0xC00000B7, 198, 199, False),
}

_SYS_LANDLOCK_CREATE_RULESET, _SYS_LANDLOCK_ADD_RULE, _SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
_SYS_FSOPEN, _SYS_FSCONFIG, _SYS_FSMOUNT = 430, 431, 432  # the same numbers on every architecture
_FSOPEN_CLOEXEC, _FSCONFIG_CMD_CREATE, _FSMOUNT_CLOEXEC = 1, 6, 1
_LANDLOCK_ACCESS_FS_WRITE_FILE, _LANDLOCK_RULE_PATH_BENEATH = 1 << 1, 1
# Opened for writing by ordinary code (subprocess.DEVNULL, os.urandom's fallbacks); nothing listens behind them.
_WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]  # the ABI 1 layout, which every later kernel accepts


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _fail(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


_Line = str | tuple[int, int] | tuple[int, str, str, int]
"""A label, (opcode, operand), or a jump: (opcode, label if true, label if false, operand)."""


def _assemble(program: list[_Line]) -> list[tuple[int, int, int, int]]:
    """BPF instructions with their jumps resolved: each counts the instructions it skips."""
    labels: dict[str, int] = {}
    for line in program:
        if isinstance(line, str):
            labels[line] = sum(not isinstance(earlier, str) for earlier in program[: program.index(line)])
    code: list[tuple[int, int, int, int]] = []
    for line in program:
        if isinstance(line, str):
            continue
        if len(line) == 2:
            code.append((line[0], 0, 0, line[1]))
        else:
            opcode, if_true, if_false, operand = line
            after = len(code) + 1
            code.append((opcode, labels[if_true] - after, labels[if_false] - after, operand))
    return code


def _unix_socket_filter() -> list[tuple[int, int, int, int]]:
    """A BPF program: socket(AF_UNIX), socketpair(AF_UNIX, SOCK_DGRAM) (whose ends can sendto() any path),
    io_uring and a foreign ABI refused with EACCES; everything else allowed. A stream or seqpacket pair stays
    (multiprocessing.Pipe): its ends are connected to each other only."""
    machine = platform.machine()
    if machine not in _ARCHES or sys.byteorder != "little":
        raise OSError(errno.ENOTSUP, f"no Unix-socket filter for the {machine} architecture")
    arch, socket_nr, socketpair_nr, has_x32 = _ARCHES[machine]
    x32: list[_Line] = [(_JGE_K, "deny", "native", _X32_SYSCALL_BIT), "native"] if has_x32 else []
    return _assemble(
        [
            (_LD_ABS_W, _ARCH),
            (_JEQ_K, "arch", "deny", arch),
            "arch",
            (_LD_ABS_W, _NR),
            *x32,
            (_JEQ_K, "deny", "not_io_uring", _IO_URING_SETUP),
            "not_io_uring",
            (_JEQ_K, "socket", "not_socket", socket_nr),
            "not_socket",
            (_JEQ_K, "socketpair", "allow", socketpair_nr),
            "socket",
            (_LD_ABS_W, _ARG0),
            (_JEQ_K, "deny", "allow", _AF_UNIX),
            "socketpair",
            (_LD_ABS_W, _ARG0),
            (_JEQ_K, "unix_pair", "allow", _AF_UNIX),
            "unix_pair",
            (_LD_ABS_W, _ARG1),
            (_AND_K, _SOCK_TYPE_MASK),
            (_JEQ_K, "deny", "allow", _SOCK_DGRAM),
            "allow",
            (_RET_K, _SECCOMP_RET_ALLOW),
            "deny",
            (_RET_K, _SECCOMP_RET_ERRNO | errno.EACCES),
        ]
    )


def _refuse_unix_sockets() -> None:
    code = b"".join(struct.pack("=HBBI", *line) for line in _unix_socket_filter())
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        raise _fail("prctl(PR_SET_SECCOMP)")


def _syscall(number: int, *args: object) -> int:
    return int(_libc.syscall(ctypes.c_long(number), *args))


def _allow_writes_beneath(ruleset: int, fd: int, what: str) -> None:
    rule = _PathBeneathAttr(_LANDLOCK_ACCESS_FS_WRITE_FILE, fd)
    if _syscall(_SYS_LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
        raise _fail(f"landlock_add_rule({what})")


def _refuse_writes_outside(writable: list[str], writable_fds: list[int]) -> bool:
    """Opening for writing refused beneath every path but `writable` and the directories `writable_fds` open (FIFOs
    of host processes included); False when the kernel has no Landlock."""
    attr = _RulesetAttr(_LANDLOCK_ACCESS_FS_WRITE_FILE)
    ruleset = _syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0)
    if ruleset < 0:
        if ctypes.get_errno() in (errno.ENOSYS, errno.EOPNOTSUPP):
            return False
        raise _fail("landlock_create_ruleset")
    try:
        for path in writable:
            if os.path.exists(path):
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                try:
                    _allow_writes_beneath(ruleset, fd, path)
                finally:
                    os.close(fd)
        for fd in writable_fds:
            _allow_writes_beneath(ruleset, fd, f"descriptor {fd}")
        if _syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return True


def _mqueue_root() -> int | None:
    """The root of this IPC namespace's POSIX message queues, as a detached mount (root only): where mq_open
    creates its files, which Landlock must let the code open. None in a kernel without POSIX message queues."""
    fs = _syscall(_SYS_FSOPEN, b"mqueue", _FSOPEN_CLOEXEC)
    if fs < 0:
        if ctypes.get_errno() == errno.ENODEV:
            return None
        raise _fail("fsopen(mqueue)")
    try:
        if _syscall(_SYS_FSCONFIG, fs, _FSCONFIG_CMD_CREATE, None, None, 0) != 0:
            raise _fail("fsconfig(mqueue, create)")
        root = _syscall(_SYS_FSMOUNT, fs, _FSMOUNT_CLOEXEC, 0)
        if root < 0:
            raise _fail("fsmount(mqueue)")
        return root
    finally:
        os.close(fs)


def shut(writable: list[str]) -> dict[str, bool]:
    """Refuse Unix sockets, and opening for writing outside `writable` and the namespace's message queues;
    what is in effect. Called as root, in the new namespaces, before the uid drop."""
    _refuse_unix_sockets()
    mqueue = _mqueue_root()
    try:
        refused = _refuse_writes_outside([*writable, *_WRITABLE_DEVICES], [] if mqueue is None else [mqueue])
    finally:
        if mqueue is not None:
            os.close(mqueue)
    return {"unix_sockets_refused": True, "writes_outside_refused": refused}
