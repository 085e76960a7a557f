/**
 * Ends the process quietly when the reader of its output goes away (`artifact-kit demo | head
 * -1`). A Unix filter would die of SIGPIPE there; Node ignores that signal, so the next write
 * fails with EPIPE instead, an unhandled 'error' event that prints a stack trace and exits 1.
 *
 * stdout: exit at once with the command's outcome so far (0 unless it has already failed),
 * before a pipeline writing to stdout (`get -o -`) can report the broken pipe as a failure:
 * this listener is added first, so it runs first. A write in progress is left as after any
 * interruption: adapters publish atomically, so it is published or it is not.
 * stderr: only messages go there (progress, a failure), so losing its reader loses nothing
 * the command needs; the command runs on and keeps its exit code.
 */
export function endQuietlyWhenReaderLeaves(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (!readerLeft(error)) throw error;
    const code = process.exitCode;
    process.exit(typeof code === "number" ? code : 0);
  });
  process.stderr.on("error", (error: NodeJS.ErrnoException) => {
    if (!readerLeft(error)) throw error;
  });
}

function readerLeft(error: NodeJS.ErrnoException): boolean {
  // ERR_STREAM_DESTROYED: a write after the first EPIPE, once the stream is torn down.
  return error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED";
}
