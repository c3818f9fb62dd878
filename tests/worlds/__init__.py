"""The incident worlds, built on demand: ``folder("fleet")`` is fleet's dataset folder.

A world is specified, never committed. ``scripts/generate_world_<name>.py OUT_DIR`` writes
``OUT_DIR/<name>/`` (``scripts/generate_worlds.py`` writes shop and pipeline), byte for byte the
same on every run; what it reads besides its code (truth entries kept as data) is in
``scripts/worlds_data/<name>/``. ``folder`` runs the generator the first time a world is asked for
and keeps what it wrote in ``$HARNESS_WORLD_CACHE``, else ``.cache/worlds/`` in the repository
(git-ignored), as ``<name>-<hash of the generator's sources and data files>``: an unchanged world
is reused, an edited one rebuilt. A build is written aside and renamed into place whole, under a lock per
generator, so two pytest workers asking at once build it once and never see half a world.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diagnosis_harness.tools.dataset.build import LoadReport

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCRIPTS = REPO / "scripts"
SHARED_GENERATOR = "generate_worlds.py"
"""The one generator that writes more than one world, and that some others import."""
SHARED_WORLDS = ("shop", "pipeline")
DATA_DIR = "worlds_data"
"""The folder beside the generators that holds a world's data files, ``worlds_data/<world>/``."""
TIMEOUT_S = 600
"""How long one generator may run before its build is abandoned (all of them take ~40 s)."""


class WorldError(RuntimeError):
    """A world could not be built: unknown name, a generator that failed or wrote no such world."""


def cache_root() -> Path:
    """``$HARNESS_WORLD_CACHE``, else ``.cache/worlds`` in the repository (git-ignored)."""
    return Path(os.environ.get("HARNESS_WORLD_CACHE") or REPO / ".cache" / "worlds")


def names(scripts: Path = SCRIPTS) -> tuple[str, ...]:
    """Every world a generator in ``scripts`` writes, sorted."""
    single = {p.stem.removeprefix("generate_world_") for p in scripts.glob("generate_world_*.py")}
    shared = set(SHARED_WORLDS) if (scripts / SHARED_GENERATOR).is_file() else set()
    return tuple(sorted(single | shared))


def generator(name: str, scripts: Path = SCRIPTS) -> Path:
    """The script that writes world ``name``."""
    script = scripts / (SHARED_GENERATOR if name in SHARED_WORLDS else f"generate_world_{name}.py")
    if not name.isidentifier() or not script.is_file():
        raise WorldError(f"no world {name!r}: known worlds are {', '.join(names(scripts))} "
                         "(a world is written by scripts/generate_world_<name>.py)")
    return script


def sources(script: Path) -> list[Path]:
    """What a generator's output depends on: itself, the shared generator it may import, the engine."""
    out = [script]
    shared = script.parent / SHARED_GENERATOR
    if script != shared and SHARED_GENERATOR.removesuffix(".py") in script.read_text(encoding="utf-8"):
        out.append(shared)
    out += sorted(p for p in HERE.rglob("*.py")
                  if p.parent != HERE or p.name not in ("__init__.py", "__main__.py"))
    return out


def data_files(script: Path) -> list[Path]:
    """The data files a generator reads: everything under ``worlds_data/<world>/`` beside it, for
    each world it writes (``engine.DATA``: truth entries and tables kept as data)."""
    shared = script.name == SHARED_GENERATOR
    worlds = SHARED_WORLDS if shared else (script.stem.removeprefix("generate_world_"),)
    return sorted(p for world in worlds for p in (script.parent / DATA_DIR / world).rglob("*") if p.is_file())


def digest(script: Path) -> str:
    """A hash of a generator's sources (names and bytes) and of its data files (by their path under
    ``worlds_data``): a world whose data changed is rebuilt like one whose code did."""
    data = script.parent / DATA_DIR
    named = [(p.name, p) for p in sources(script)]
    named += [(str(p.relative_to(data)), p) for p in data_files(script)]
    return _hashed(named)[:16]


def folder(name: str, scripts: Path = SCRIPTS) -> Path:
    """World ``name``'s dataset folder, generated into the cache the first time it is asked for.

    ``scripts`` is where the generators are (the repository's ``scripts/``).
    """
    script = generator(name, scripts)
    target = cache_root() / f"{name}-{digest(script)}"
    if target.is_dir():
        return target
    with _locked(script):
        if not target.is_dir():  # another process may have built it while this one waited
            _build(script, target.name.rsplit("-", 1)[1])
    if not target.is_dir():
        raise WorldError(f"{script.name} wrote no folder {name!r}")
    return target


def loaded(world: Path) -> LoadReport:
    """World folder ``world`` indexed by the harness loader, once for every test that reads it.

    Three test modules read the same worlds' stores (loader facts, pattern counts, evidence
    steps); each indexed them again into a folder of its own, about 100 s of a CI run. The store
    is kept in the cache as ``loaded/<world folder>-<hash of the loader's sources>``: a world or
    a loader that changed gets a store of its own, and ``load_dataset`` itself (its lock, its
    manifest) makes the second asker reuse the first one's build. Tests only read it.
    """
    from diagnosis_harness.tools.dataset.build import load_dataset

    key = _loader_digest()
    root = cache_root() / "loaded"
    for old in root.glob(f"{world.name}-*"):  # this world indexed by an earlier loader
        if old.is_dir() and old.name.rsplit("-", 1)[1] != key:
            shutil.rmtree(old, ignore_errors=True)
    return load_dataset(world, root / f"{world.name}-{key}")


def seeded(world: Path, home: Path) -> Path:
    """``home`` holding ``world``'s store as :func:`loaded` indexed it, where a run looks for it.

    A run (an eval's preflight) finds the dataset's build current and indexes nothing: ~5 s of
    a world's eval. A copy, so a run never writes into the store other tests read.
    """
    from diagnosis_harness.control.settings import Settings
    from diagnosis_harness.tools.dataset.layout import dataset_dir

    dest = dataset_dir(Settings(_env_file=None, home=home, data_dir=world))  # type: ignore[call-arg]
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(loaded(world).dest, dest)
    return home


@functools.cache
def _loader_digest() -> str:
    """A hash of the product's tool sources (the loader, its patterns and its schema), read once
    a process: every world a test module asks for shares it."""
    paths = sorted((REPO / "tools").rglob("*.py"))
    return _hashed([(str(p.relative_to(REPO)), p) for p in paths])[:12]


def _hashed(named: list[tuple[str, Path]]) -> str:
    """A hash of files, each by the name given and its bytes."""
    h = hashlib.sha256()
    for name, path in named:
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def build(wanted: tuple[str, ...] | None = None) -> dict[str, Path]:
    """Every world (or those named), built where missing: name → folder."""
    return {name: folder(name) for name in (wanted or names())}


@contextmanager
def _locked(script: Path) -> Iterator[None]:
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".lock-{script.stem}", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(script: Path, key: str) -> None:
    """Run the generator into a folder aside; rename each world it wrote into place, whole."""
    root = cache_root()
    for stale in root.glob(f".build-{script.stem}-*"):  # a build cut short (we hold the lock)
        shutil.rmtree(stale, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f".build-{script.stem}-", dir=root))
    try:
        try:
            done = subprocess.run([sys.executable, str(script), str(work)], capture_output=True,
                                  text=True, timeout=TIMEOUT_S, check=False, cwd=REPO)
        except subprocess.TimeoutExpired as exc:
            raise WorldError(f"{script.name} ran longer than {TIMEOUT_S} s; nothing was kept") from exc
        if done.returncode != 0:
            tail = (done.stderr.strip() or done.stdout.strip())[-2000:]
            raise WorldError(f"{script.name} failed ({done.returncode}); nothing was kept: {tail}")
        for made in sorted(p for p in work.iterdir() if p.is_dir()):
            target = root / f"{made.name}-{key}"
            if not target.exists():
                os.rename(made, target)
            for old in root.glob(f"{made.name}-*"):  # earlier builds of this world
                if old != target and old.is_dir() and old.name.rsplit("-", 1)[0] == made.name:
                    shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
