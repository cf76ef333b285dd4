"""Where a Paddle inference model's files are: the program and its parameter file.

Paddle saves ``<prefix>.pdmodel`` (ProgramDesc, Paddle <= 2.x or with the PIR API off) or
``<prefix>.json`` (PIR, Paddle 3), plus ``<prefix>.pdiparams``; exports name the prefix
``inference``. A directory is searched for ``inference.json`` / ``inference.pdmodel`` first,
then for a single program file of either kind.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lite_converter.ir import ConversionError

PROGRAM_SUFFIXES = (".json", ".pdmodel")
PARAMS_SUFFIX = ".pdiparams"


@dataclasses.dataclass(frozen=True)
class PaddleModelFiles:
    program: Path
    params: Path | None


def is_paddle_model(path: Path) -> bool:
    """True for a Paddle program file, or a directory holding one."""
    if path.is_dir():
        return any(path.glob("*.pdmodel")) or any(
            p.suffix == ".json" and p.with_suffix(PARAMS_SUFFIX).exists() for p in path.glob("*.json")
        )
    return path.suffix == ".pdmodel" or (path.suffix == ".json" and path.with_suffix(PARAMS_SUFFIX).exists())


def find_model_files(model: Path, params: Path | None = None) -> PaddleModelFiles:
    """The program and parameter files of ``model`` (a directory or the program file)."""
    if model.is_dir():
        candidates = [model / f"inference{suffix}" for suffix in PROGRAM_SUFFIXES]
        found = [path for path in candidates if path.is_file()]
        if not found:
            found = sorted(
                p
                for p in model.iterdir()
                if p.suffix == ".pdmodel" or (p.suffix == ".json" and p.with_suffix(PARAMS_SUFFIX).exists())
            )
            if len({p.stem for p in found}) > 1:
                raise ConversionError(
                    f"{model} holds several Paddle programs ({', '.join(p.name for p in found)});"
                    " name the one to convert"
                )
        if not found:
            raise ConversionError(
                f"{model} holds no Paddle inference model (inference.pdmodel or "
                "inference.json with inference.pdiparams)"
            )
        program = found[0]
    elif model.is_file():
        if model.suffix not in PROGRAM_SUFFIXES:
            raise ConversionError(f"{model}: a Paddle program ends in .pdmodel or .json")
        program = model
    else:
        raise ConversionError(f"Paddle model not found: {model}")
    return PaddleModelFiles(program, params if params is not None else program.with_suffix(PARAMS_SUFFIX))
