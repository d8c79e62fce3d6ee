"""Files of a game's public pages on disk: each replaced whole (written aside,
then renamed, so a web server never serves half a page), files 0644 and the
folders made for them 0755 whatever the umask (the web server's account reads
them: under a service's ``UMask=0027`` it could not, under 000 anyone could
write them)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["public_folders", "write_public", "copy_public"]


def public_folders(directory: Path) -> None:
    """``directory`` and the parents it lacks, made 0755. Folders already
    there keep the mode their owner gave them."""
    missing = [folder for folder in (directory, *directory.parents) if not folder.exists()]
    for folder in reversed(missing):
        folder.mkdir(exist_ok=True)
        os.chmod(folder, 0o755)


def _replace(target: Path, fill: Callable[[Path], object]) -> Path:
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    temp = Path(name)
    try:
        fill(temp)
        os.chmod(temp, 0o644)  # not our umask's, nor a copied file's own mode
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return target


def write_public(target: Path, data: bytes) -> Path:
    """``target`` replaced whole by ``data``, mode 0644."""
    return _replace(target, lambda temp: temp.write_bytes(data))


def copy_public(source: Path, target: Path) -> Path:
    """``target`` replaced whole by a copy of ``source`` (its times kept: an unchanged copy is not
    made again), mode 0644."""
    return _replace(target, lambda temp: shutil.copy2(source, temp))
