"""A run directory that cannot be one is refused in one sentence before Hydra creates anything, and a run refused
later removes only the directories it created: never a user's empty folder or a mount point."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.records.run_dir import check_output_dir, check_run_dir_contents, first_missing, remove_created
from tests.in_process import run_in_process, run_module
from tests.runner import REPLAY_CACHE, ROOT, run_cli
from tests.harness.cli.test_bad_input import assert_one_sentence, files_under

REPLAY = ("llm.cache.mode=replay", f"llm.cache.path={REPLAY_CACHE}")


def refused(*overrides: str, cwd: Path = ROOT) -> str:
    """Run `python run.py` expecting a refusal: exit 2, one sentence, no traceback; returns the sentence."""
    result = run_in_process("progress=false", *overrides, cwd=cwd)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr, result.stderr
    return result.stderr.strip()


def corrupt_cache(tmp_path: Path) -> str:
    """A cache whose only line is not JSON: the run is refused after Hydra created the run directory."""
    cache = tmp_path / "corrupt.jsonl"
    cache.write_text("not json\n")
    return f"llm.cache.path={cache}"


def test_check_output_dir_refuses_what_cannot_hold_a_run(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    cases = {
        "": "hydra.run.dir is empty",
        str(tmp_path / "file"): "is a file, not a directory",
        str(tmp_path / "file" / "run"): f"is inside {tmp_path / 'file'}, which is a file",
        str(tmp_path / ("x" * 300)): "a folder name of 300 bytes",
        "~/runs/x": "starts with '~'",
        str(tmp_path / "dangling"): "is a symbolic link to",
    }
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for value, needle in cases.items():
        with pytest.raises(ConfigError, match=needle.replace("(", r"\(")):
            check_output_dir(value, "hydra.run.dir")
    assert check_output_dir(str(tmp_path / "new" / "run"), "hydra.run.dir") == tmp_path / "new" / "run"


def test_a_first_manifest_write_cut_short_is_not_taken_for_someone_s_file(tmp_path: Path) -> None:
    """A run killed while writing its first manifest leaves its records and the manifest's whole-file temporary."""
    for name in ("trials.jsonl", "run.lock", ".manifest.json.0123456789abcdef.tmp"):
        (tmp_path / name).write_text("")
    check_run_dir_contents(tmp_path, "hydra.run.dir")
    (tmp_path / "notes.tmp").write_text("mine")
    with pytest.raises(ConfigError, match="holds trials.jsonl with no manifest.json, and beside it notes.tmp"):
        check_run_dir_contents(tmp_path, "hydra.run.dir")


def test_remove_created_stops_at_what_existed(tmp_path: Path) -> None:
    run = tmp_path / "a" / "b" / "c"
    assert first_missing(run) == tmp_path / "a" and first_missing(tmp_path) is None
    run.mkdir(parents=True)
    remove_created(run, tmp_path / "a" / "b")  # as if a/ was there before: a/ stays
    assert (tmp_path / "a").is_dir() and not (tmp_path / "a" / "b").exists()
    remove_created(tmp_path / "a", None)  # nothing created: nothing removed
    assert (tmp_path / "a").is_dir()


@pytest.mark.parametrize(
    ("name", "needle"),
    [("file", "is a file, not a directory"), ("x" * 300, "a folder name of 300 bytes"), ("", "is empty")],
    ids=["an existing file", "a 300-character name", "empty"],
)
def test_an_impossible_run_dir_is_one_sentence(tmp_path: Path, name: str, needle: str) -> None:
    (tmp_path / "file").write_text("kept\n")
    before = files_under(tmp_path)
    sentence = refused(*REPLAY, f"hydra.run.dir={tmp_path / name if name else ''}")
    assert_one_sentence(sentence, [needle])
    assert files_under(tmp_path) == before and (tmp_path / "file").read_text() == "kept\n"


def symlink_loop(root: Path) -> Path:
    """`root/a` -> `b` -> `a`: a pair of links that never reaches a directory; returns `root/a`."""
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    return root / "a"


@pytest.mark.parametrize("below", [False, True], ids=["the loop itself", "a directory below it"])
def test_a_symlink_loop_as_a_run_directory_is_one_sentence_not_a_traceback(tmp_path: Path, below: bool) -> None:
    loop = symlink_loop(tmp_path)
    run = loop / "run" if below else loop
    through = f"goes through {loop}, which is" if below else "is"
    sentence = refused(*REPLAY, f"hydra.run.dir={run}")
    assert_one_sentence(sentence, [f"hydra.run.dir={run} {through} a loop of symbolic links"])


def test_a_read_only_filesystem_is_one_sentence(mount: Callable[..., Path]) -> None:
    read_only = mount("ro", "ro")
    assert_one_sentence(refused(*REPLAY, f"hydra.run.dir={read_only / 'run'}"), ["cannot be written", "read-only"])


def test_a_directory_holding_someone_s_files_is_not_taken_for_a_run(tmp_path: Path) -> None:
    """Without a manifest, a run would write its summary.md and report.md over the user's files of that name."""
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "summary.md").write_text("my own summary\n")
    sentence = refused(*REPLAY, f"hydra.run.dir={mine}")
    assert_one_sentence(sentence, ["holds summary.md and no manifest.json", "new or empty directory"])
    assert [p.name for p in mine.iterdir()] == ["summary.md"] and (mine / "summary.md").read_text() == "my own summary\n"
    sweep = run_cli(*REPLAY, "experiment.trials=1,2", f"hydra.sweep.dir={mine}", multirun=True)
    assert sweep.returncode == 2 and "holds summary.md and no multirun.yaml" in sweep.stderr
    assert [p.name for p in mine.iterdir()] == ["summary.md"]


def test_bad_input_creates_no_parent_of_a_nested_run_dir(tmp_path: Path) -> None:
    assert_one_sentence(refused("experiment.trials=0", f"hydra.run.dir={tmp_path / 'a' / 'b' / 'c'}"), ["trials"])
    assert files_under(tmp_path) == []


def test_a_fresh_clone_gets_no_results_folder_from_bad_input(tmp_path: Path) -> None:
    assert_one_sentence(refused("experiment.trials=0", cwd=tmp_path), ["experiment.trials = 0"])
    assert files_under(tmp_path) == []


def test_a_run_refused_after_hydra_made_its_directory_removes_only_what_it_made(tmp_path: Path) -> None:
    assert_one_sentence(
        refused("llm.cache.mode=replay", corrupt_cache(tmp_path), f"hydra.run.dir={tmp_path / 'a' / 'b'}"),
        ["is corrupt"],
    )
    assert not (tmp_path / "a").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    assert_one_sentence(refused("llm.cache.mode=replay", corrupt_cache(tmp_path), f"hydra.run.dir={mine}"), ["corrupt"])
    assert mine.is_dir(), "an empty directory the user made was removed"


def test_an_empty_mount_point_is_left_alone(mount: Callable[..., Path]) -> None:
    point = mount("mnt")
    cache = point.parent / "corrupt.jsonl"
    cache.write_text("not json\n")
    assert_one_sentence(
        refused("llm.cache.mode=replay", f"llm.cache.path={cache}", f"hydra.run.dir={point}"), ["is corrupt"]
    )
    assert point.is_dir() and subprocess.run(["mountpoint", "-q", str(point)]).returncode == 0


def test_a_sweep_with_one_bad_job_starts_none(tmp_path: Path) -> None:
    result = run_cli(*REPLAY, "experiment.trials=1,0", f"hydra.sweep.dir={tmp_path / 'sweep'}", multirun=True)
    assert result.returncode == 2, result.stderr
    assert_one_sentence(result.stderr, ["sweep job 1 (experiment.trials=0)", "greater than or equal to 1"])
    assert files_under(tmp_path) == []


def test_a_sweep_whose_jobs_share_a_directory_is_refused(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    result = run_cli(*REPLAY, "experiment.trials=1,2", f"hydra.sweep.dir={sweep}", "hydra.sweep.subdir=same", multirun=True)
    assert result.returncode == 2, result.stderr
    assert_one_sentence(result.stderr, ["gives jobs 0 and 1 the same directory", "hydra.job.num"])
    assert files_under(tmp_path) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_directory_where_nothing_can_be_created_is_refused_even_when_os_access_says_yes() -> None:
    """'hydra.run.dir=/proc/x and --out /proc/x crash (os.access is true for root there)': one sentence, exit 2."""
    with pytest.raises(ConfigError, match=r"hydra.run.dir=/proc/harness-x cannot be written: /proc, where it would"):
        check_output_dir("/proc/harness-x", "hydra.run.dir")
    sentence = refused("hydra.run.dir=/proc/harness-x")
    assert_one_sentence(sentence, ["/proc/harness-x cannot be written"])
    out = run_module("harness.cli.report", str(ROOT / "tests" / "fixtures"), "--out", "/proc/harness-x")
    assert out.returncode == 2 and "--out=/proc/harness-x cannot be written" in out.stderr, out.stderr


def test_a_directory_in_place_of_metrics_json_on_resume_names_the_path_not_a_full_disk(tmp_path: Path) -> None:
    """Issue 26, hostile try 28: the advice was 'make room', which is a full disk's."""
    run_dir = tmp_path / "run"
    finished = run_cli(*REPLAY, f"hydra.run.dir={run_dir}")
    assert finished.returncode == 0, finished.stderr
    (run_dir / "metrics.json").unlink()
    (run_dir / "metrics.json").mkdir()
    resumed = run_cli(*REPLAY, f"hydra.run.dir={run_dir}")
    assert resumed.returncode == 2 and "Traceback" not in resumed.stderr, resumed.stderr
    last = resumed.stderr.strip().splitlines()[-1]
    assert_one_sentence(last, ["Is a directory", f"move away what is in the way of {run_dir / 'metrics.json'}"])
    assert "make room" not in last
    assert len((run_dir / "trials.jsonl").read_bytes().splitlines()) == 4, "every record kept"
