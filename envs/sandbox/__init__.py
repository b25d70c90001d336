"""Run untrusted, LLM-written Python against tests in a separate, contained process.

    verdict = run_tests(code, AssertTests(asserts=["assert add(1, 2) == 3"]))
    verdict = run_tests(problem.prompt + completion, CheckScript(script=problem.test, entry_point="add"))

Each run is a fresh `python -I` process (`_runner.py`) in its own session, with stdin closed, a
scrubbed environment (PATH, LANG, HOME, TMPDIR and PYTHONDONTWRITEBYTECODE only: no API key or other
variable of the harness), stdout and stderr captured up to a cap, and a new temporary working
directory removed afterwards. Results come back as JSON lines on a dedicated pipe, each tagged with
a per-run nonce and the runner's pid, never on stdout; a run that ends (sys.exit, os._exit, closed
descriptors) before the runner reports the tests done is `exited_early`, never `passed`.

Containment when the harness runs as root (the case in this project's container):
- a dedicated uid/gid per run from a flock-guarded pool (`_uids.py`), with no capabilities, no
  supplementary groups and PR_SET_NO_NEW_PRIVS, so setuid programs cannot raise it back;
- private mount and network namespaces: every mount read-only, the working directory a size-capped
  tmpfs (the only writable place), a home directory the interpreter lives under (pyenv in /root,
  mode 0700, which the uid could not even enter) replaced by an empty tmpfs holding only the
  interpreter's tree, /proc remounted with hidepid=invisible (the harness's /proc/<pid>/environ and
  cmdline are not even listed), and no network (only a loopback, down);
- a private IPC namespace: SysV shared memory, semaphores and message queues and POSIX message
  queues are the run's own (SysV shared memory capped at the workdir's size) and go with its last
  process; /dev/shm (POSIX shared memory, multiprocessing's semaphores) a tmpfs of its own, and
  /dev/mqueue too where the host has one; abstract Unix sockets live in the network namespace;
- no way to a host process through the filesystem, which the code sees read-only: a seccomp filter
  refuses creating Unix sockets (a connect() to a host's socket file needs no write access to the
  mount), a datagram socketpair (which could sendto() one) and io_uring, leaving connected stream
  pairs (multiprocessing.Pipe); Landlock, where the kernel has it (Isolation.writes_outside_refused),
  refuses opening any file for writing outside the workdir, /dev/shm, the message queues and
  /dev/null-like devices, so a host's named pipe gets nothing either (only a pipe the host lets
  everyone read could still be read from);
- rlimits set in the runner before the code starts: RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_CORE=0
  and RLIMIT_NPROC, which is an exact per-run budget because the uid belongs to the run;
- at the wall-time timeout, or as soon as the runner exits, SIGKILL to the runner's process group and
  then kill(-1) sent as the run's uid, which kills every process of the uid at once: a double-forked
  setsid daemon that ignores SIGTERM cannot outlive the run;
- an audit hook in the runner refusing, from Python, file changes outside the working directory and
  opening any /proc/<pid>/environ (defence in depth).

As an ordinary user the first two are impossible: the code runs as that user with the network, its
RLIMIT_NPROC is the user's current task count plus the budget, only the process group is killed (a
setsid daemon escapes it), and the audit hook is the only guard of the user's files, which ctypes, a
subprocess or a C extension bypass. In every mode the code shares its interpreter with the tests, so
code written to cheat (patching the runner, an object whose __eq__ is always true) can fake a pass:
the sandbox protects the machine and the harness from the code, not the verdict from a deliberate
attack on it.

In every mode the runner gets SIGKILL when the harness thread that started it ends (PR_SET_PDEATHSIG: the
harness enforces the wall time, so a killed harness must not leave a sleeping test behind), and a harness that
exits with tests under way (a run stopped by Ctrl-C leaves its trial threads behind) kills their process groups
and uids first. What the code forked outlives only a harness killed outright (as root, until its uid is next
leased: `sandbox_uid` kills a uid's leftovers before handing it out).
"""

from __future__ import annotations

from envs.sandbox._errors import SandboxError
from envs.sandbox._limits import SandboxLimits
from envs.sandbox._run import run_tests
from envs.sandbox._suite import AssertTests, CheckScript, TestSuite
from envs.sandbox._verdict import (
    CapturedOutput,
    Isolation,
    RaisedException,
    ResourceLimit,
    SourceLine,
    Status,
    TestResult,
    Verdict,
)

__all__ = [
    "AssertTests",
    "CapturedOutput",
    "CheckScript",
    "Isolation",
    "RaisedException",
    "ResourceLimit",
    "SandboxError",
    "SandboxLimits",
    "SourceLine",
    "Status",
    "TestResult",
    "TestSuite",
    "Verdict",
    "run_tests",
]
