"""The `.eval` log as the zip archive it is: its members read and copied without parsing them into an EvalLog.

A finished Inspect `.eval` log is a zip of JSON members: `_journal/start.json` (the eval spec and plan),
`samples/<id>_epoch_<n>.json` (one per sample record), `summaries.json` (and its journal copy),
`reductions.json` and `header.json`. Merging shards changes only the members describing the whole run; the sample
members are copied from the shard logs as the compressed bytes they are, which is what makes a merge cost seconds
whatever the sample count (reading and writing every sample through Inspect cost 9.5-15 ms of CPU a
sample, benchmarks/bench_merge.py).
"""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspect_ai._util.zipfile import zipfile_compress_kwargs  # zstandard, as Inspect writes its own logs
from inspect_ai.log import EvalLog
from pydantic import BaseModel

SAMPLES_PREFIX = "samples/"
START_MEMBER = "_journal/start.json"
JOURNAL_SUMMARIES_MEMBER = "_journal/summaries/1.json"
SUMMARIES_MEMBER = "summaries.json"
REDUCTIONS_MEMBER = "reductions.json"
HEADER_MEMBER = "header.json"
"""The member names Inspect 0.3.285 reads and writes (inspect_ai/log/_recorders/eval.py)."""
DATA_DESCRIPTOR_FLAG = 0x08
"""General-purpose flag bit: sizes and CRC follow the data rather than sit in the local header."""
LOCAL_HEADER_SIGNATURE = b"PK\x03\x04"
LOCAL_HEADER_SIZE = 30
"""A local file header's fixed part; the member's name and extra field follow it (APPNOTE.TXT 4.3.7)."""
NAME_AND_EXTRA_LENGTHS = struct.Struct("<HH")
"""The last two fields of the fixed part: the lengths of the name and of the extra field."""


def live_members(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """Each member name's last entry: a later entry of the same name supersedes an earlier one, as Inspect reads."""
    return {info.filename: info for info in archive.infolist()}


def sample_members(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The sample records (`samples/*.json`), by member name."""
    return {
        name: info
        for name, info in live_members(archive).items()
        if name.startswith(SAMPLES_PREFIX) and name.endswith(".json")
    }


def read_json(archive: zipfile.ZipFile, member: str | zipfile.ZipInfo) -> Any:
    return json.loads(archive.read(member))


def raw_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member's data as stored (compressed), without decompressing it."""
    source = archive.fp
    if source is None:
        raise ValueError(f"{archive.filename}: closed")
    source.seek(info.header_offset)
    header = source.read(LOCAL_HEADER_SIZE)
    if len(header) != LOCAL_HEADER_SIZE or header[:4] != LOCAL_HEADER_SIGNATURE:
        raise zipfile.BadZipFile(f"{archive.filename}: no local header for {info.filename}")
    name_length, extra_length = NAME_AND_EXTRA_LENGTHS.unpack(header[-NAME_AND_EXTRA_LENGTHS.size :])
    source.seek(info.header_offset + LOCAL_HEADER_SIZE + name_length + extra_length)
    data = source.read(info.compress_size)
    if len(data) != info.compress_size:
        raise zipfile.BadZipFile(f"{archive.filename}: {info.filename} is truncated")
    return data


class ArchiveWriter:
    """Writes a new `.eval` zip: members copied as stored from other archives, and new JSON members."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive

    def copy(self, source: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
        """Copy a member's compressed bytes, CRC and sizes unchanged (no decompression, no recompression)."""
        data = raw_bytes(source, info)
        target = self.archive.fp
        assert target is not None
        copied = zipfile.ZipInfo(info.filename, info.date_time)
        copied.compress_type = info.compress_type
        copied.external_attr = info.external_attr
        copied.CRC, copied.compress_size, copied.file_size = info.CRC, info.compress_size, info.file_size
        copied.flag_bits = info.flag_bits & ~DATA_DESCRIPTOR_FLAG  # the sizes are known: they go in the header
        copied.header_offset = target.tell()
        zip64 = max(copied.file_size, copied.compress_size) > zipfile.ZIP64_LIMIT
        target.write(copied.FileHeader(zip64))
        target.write(data)
        # what ZipFile's own writes do, so that its later writes and its central directory include this member
        self.archive.filelist.append(copied)
        self.archive.NameToInfo[copied.filename] = copied
        self.archive.start_dir = target.tell()
        self.archive._didModify = True  # type: ignore[attr-defined]

    def write_json(self, member: str, value: Any) -> None:
        """A JSON member as Inspect writes one: compact, models without their null fields."""
        self.archive.writestr(member, json_bytes(value))


def json_bytes(value: Any) -> bytes:
    """Compact JSON: models without their null fields (as Inspect serialises them), plain JSON values as they are."""
    if isinstance(value, BaseModel):
        return value.model_dump_json(exclude_none=True).encode()
    if isinstance(value, dict) and any(isinstance(item, BaseModel) for item in value.values()):
        items = (json.dumps(str(key)).encode() + b":" + json_bytes(item) for key, item in value.items())
        return b"{" + b",".join(items) + b"}"
    if isinstance(value, list | tuple) and any(isinstance(item, BaseModel) for item in value):
        return b"[" + b",".join(json_bytes(item) for item in value) + b"]"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


@contextmanager
def new_archive(path: Path) -> Iterator[ArchiveWriter]:
    """A new `.eval` file written beside `path` and moved into place once complete: never half a log at `path`."""
    partial = path.with_name(path.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", **zipfile_compress_kwargs) as archive:
            yield ArchiveWriter(archive)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def header_member(log: EvalLog) -> EvalLog:
    """The `header.json` of a log: everything but its samples and reductions, built as Inspect builds it (so that
    the log-level tags and metadata are derived again from the eval spec)."""
    return EvalLog(
        version=log.version,
        invalidated=log.invalidated,
        log_updates=log.log_updates,
        config_updates=log.config_updates,
        eval=log.eval,
        plan=log.plan,
        results=log.results,
        stats=log.stats,
        status=log.status,
        error=log.error,
    )
