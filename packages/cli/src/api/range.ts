import { ArtifactError, type ByteRange } from "@artifact-kit/core";

// One `Range: bytes=...` of RFC 9110: `a-b`, `a-` or `-n`. Several ranges, another unit or
// a malformed header are ignored (the whole body is served, as the RFC allows); a range
// that starts past the end is refused with 416.

export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return undefined;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0) throw unsatisfiable(size);
    const length = Math.min(suffix, size);
    return { offset: size - length, length };
  }
  const offset = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (!Number.isSafeInteger(offset) || offset >= size) throw unsatisfiable(size);
  if (end < offset) return undefined;
  return { offset, length: end - offset + 1 };
}

function unsatisfiable(size: number): ArtifactError {
  return new ArtifactError("invalid_argument", "range: starts past the end of the artifact", {
    detail: { field: "range", reason: "range_not_satisfiable", size },
  });
}
