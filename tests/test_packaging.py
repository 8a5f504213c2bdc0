"""The package builds as a wheel and an sdist that install and run (issue 14), and the
browser installer does not stop the test chain where it cannot install a browser."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_and_the_sdist_build_and_the_wheel_installs_and_runs(tmp_path: Path) -> None:
    source = tmp_path / "source"  # a clean copy: the build leaves nothing in the worktree
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "*.egg-info",
            "__pycache__",
            ".*_cache",
            ".hypothesis",
            "build",
            "dist",
            "*.duckdb",
            "artifacts",
        ),
    )  # what git ignores (the screenshots: 17 MB) and the history
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--outdir",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("yaniv_audit-*.whl")
    (sdist,) = (tmp_path / "dist").glob("yaniv_audit-*.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    for data in (
        "yaniv_audit/web/templates/board.html",
        "yaniv_audit/web/static/viewer.js",
        "yaniv_audit/py.typed",
    ):
        assert data in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "yaniv-audit = yaniv_audit.__main__:run" in zipfile.ZipFile(wheel).read(entry).decode()
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    for path in (
        "LICENSE",
        "README.md",
        "docs/log-format.md",
        "schemas/report.schema.json",
        "replays/middle-card.jsonl",
        "tests/test_packaging.py",
        "yaniv_audit/web/templates/index.html",
    ):
        assert path in members, path

    target = tmp_path / "installed"  # the wheel installed alone; its dependencies are ours
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    env = {**os.environ, "PYTHONPATH": str(target)}
    check = (
        "import pathlib, sys, yaniv_audit; from yaniv_audit.web import create_app; "
        "client = create_app({'ARCHIVE': sys.argv[1]}).test_client(); "
        "page = client.post('/view', data={'text': pathlib.Path(sys.argv[2]).read_text()}); "
        "style = client.get('/static/style.css'); "
        "print(yaniv_audit.__file__, page.status_code, style.status_code, "
        "b'draw.pile_card' in page.data)"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            check,
            str(tmp_path / "none.duckdb"),
            str(ROOT / "replays" / "middle-card.jsonl"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    module, page, style, marked = done.stdout.split()
    assert module.startswith(str(target)), done.stderr  # the installed copy, not the source
    assert (page, style, marked) == ("200", "200", "True"), done.stderr  # templates, static
    audit = subprocess.run(
        [sys.executable, "-m", "yaniv_audit", "audit", str(ROOT / "replays" / "middle-card.jsonl")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert audit.returncode == 1 and "RULES BROKEN under israeli" in audit.stdout
    # issue 38: the installed package has the template and serve --demo's sample games
    for sample in SAMPLES:
        assert f"yaniv_audit/samples/games/{sample.name}" in names
    template = subprocess.run(
        [sys.executable, "-m", "yaniv_audit", "template", "friday.jsonl"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert template.returncode == 0, template.stderr
    assert (tmp_path / "friday.jsonl").read_bytes() == (
        ROOT / "docs" / "template.jsonl"
    ).read_bytes()
    demo = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from yaniv_audit.archive import Archive; "
            "from yaniv_audit.cli.serve import SAMPLES, seed_archive; seed_archive(sys.argv[1]); "
            "print(SAMPLES, Archive(sys.argv[1], read_only=True).count_games())",
            str(tmp_path / "demo.duckdb"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    samples, games = demo.stdout.split()
    assert samples.startswith(str(target)) and games == str(len(SAMPLES)), demo.stderr


#: the sample games of replays/ (serve --demo's), which the package ships a copy of
SAMPLES = sorted((ROOT / "replays").glob("*.jsonl"))


def test_the_package_s_samples_are_the_repository_s() -> None:
    """yaniv_audit/samples/ holds copies (package data): the sample games of replays/ and
    docs/template.jsonl, byte for byte, and nothing else."""
    shipped = ROOT / "yaniv_audit" / "samples"
    assert sorted(p.name for p in (shipped / "games").iterdir()) == [p.name for p in SAMPLES]
    for sample in SAMPLES:
        assert (shipped / "games" / sample.name).read_bytes() == sample.read_bytes(), sample.name
    template = (ROOT / "docs" / "template.jsonl").read_bytes()
    assert (shipped / "template.jsonl").read_bytes() == template


def test_the_browser_installer_says_what_to_install_and_lets_the_chain_go_on(
    tmp_path: Path,
) -> None:
    bin_dir = tmp_path / "bin"  # a PATH with no browser and no apt-get
    bin_dir.mkdir()
    for tool in ("id", "cat"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    done = subprocess.run(
        ["/bin/sh", str(ROOT / "tests" / "install-browser.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert "no Chromium or Chrome (or no Korean font, or no valgrind) found" in done.stderr
    assert "sudo apt-get install chromium fonts-nanum" in done.stderr
    assert "YANIV_AUDIT_CHROMIUM" in done.stderr
    for tool in ("chromium", "valgrind"):  # a browser, and valgrind for the cost gate
        (bin_dir / tool).symlink_to(shutil.which("true") or "/bin/true")
    found = subprocess.run(
        ["/bin/sh", str(ROOT / "tests" / "install-browser.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (found.returncode, found.stderr) == (0, "")
