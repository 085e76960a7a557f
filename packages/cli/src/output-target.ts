import { fstatSync, type Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { localFileError } from "./local-file.js";

/**
 * Where `get` writes:
 * - `stdout`: `-o -`.
 * - `replace`: a regular file (or none yet) at `path`, written beside it and renamed over
 *   it once complete, so it is never seen half written. A symbolic link to a regular file
 *   is followed: its target is replaced and the link stays.
 * - `stream`: anything else that can be opened for writing, such as `/dev/stdout`, a
 *   terminal or a FIFO, written in place: renaming over it would replace the device.
 */
export type OutputTarget =
  | { readonly kind: "stdout" }
  | { readonly kind: "replace"; readonly path: string }
  | { readonly kind: "stream"; readonly path: string };

export async function resolveOutputTarget(output: string, path: string): Promise<OutputTarget> {
  if (output === "-") return { kind: "stdout" };
  const link = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw localFileError("output", path, error);
  });
  if (link === undefined) return { kind: "replace", path };
  if (link.isFile()) return { kind: "replace", path };
  const target = await stat(path).catch((error) => {
    throw localFileError("output", path, error);
  });
  if (target.isDirectory()) {
    throw localFileError("output", path, new Error("is a directory"));
  }
  if (target.isFile()) return { kind: "replace", path: await realpath(path) };
  // `/dev/stdout` (or `/dev/fd/1`) is this process's own standard output, which may be a
  // socket that cannot be opened again by path: write to the descriptor itself.
  const own = ownStdout();
  if (own?.dev === target.dev && own.ino === target.ino) return { kind: "stdout" };
  return { kind: "stream", path };
}

/** This process's standard output, or undefined when it is closed. */
function ownStdout(): Stats | undefined {
  try {
    return fstatSync(1);
  } catch {
    return undefined;
  }
}

/** How the target is shown in the result: the file, or "-" for standard output. */
export function describeTarget(target: OutputTarget): string {
  return target.kind === "stdout" ? "-" : target.path;
}

/** Where the command's own summary goes: stderr when the bytes went to a stream. */
export function summaryStream(target: OutputTarget): NodeJS.WritableStream {
  return target.kind === "replace" ? process.stdout : process.stderr;
}
