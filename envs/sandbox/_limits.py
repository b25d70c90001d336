"""How much the code under test may use before it is stopped."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

MIB = 1 << 20


class SandboxLimits(BaseModel):
    """Limits of one sandbox run; each maps to one kernel mechanism, named in its description."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_s: float = Field(
        10.0,
        gt=0,
        description="Wall time of the whole run, interpreter start included; then every process gets SIGKILL.",
    )
    cpu_s: int | None = Field(
        None,
        gt=0,
        description="RLIMIT_CPU seconds (SIGXCPU, SIGKILL a second later); default: the timeout rounded up + 1.",
    )
    memory_bytes: int = Field(1024 * MIB, ge=64 * MIB, description="RLIMIT_AS: address space of each process.")
    file_size_bytes: int = Field(16 * MIB, ge=0, description="RLIMIT_FSIZE: largest file a process may write.")
    workdir_bytes: int = Field(
        64 * MIB, ge=MIB, description="Size of the tmpfs working directory, all files together (as root only)."
    )
    processes: int = Field(
        16, ge=1, description="RLIMIT_NPROC: processes and threads at once, the test runner included."
    )
    output_bytes: int = Field(64 * 1024, ge=0, description="Bytes of stdout and of stderr kept; the rest is counted.")

    @property
    def effective_cpu_s(self) -> int:
        return self.cpu_s if self.cpu_s is not None else math.ceil(self.timeout_s) + 1
