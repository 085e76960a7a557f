import { close, constants, fstat, open, read, type Stats } from "node:fs";

// O_NONBLOCK: opening a FIFO (or a device) planted in place of a store file must not wait for
// a writer, which would hold one of libuv's few pool threads for good; the caller then
// refuses whatever is not a regular file. Reads of regular files ignore the flag.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Closes what a reader dropped without closing: a bug of the store, said once per file. */
const dropped = new FinalizationRegistry<{ readonly fd: number; readonly path: string }>(
  ({ fd, path }) => {
    close(fd, () => {});
    process.emitWarning(`an fs store file was closed by the garbage collector: ${path}`);
  },
);

/**
 * A store file open for reading, read through its descriptor with Node's callback API. A
 * FileHandle costs promise and event-emitter machinery of its own per open, read, stat and
 * close, some 35 µs of the main thread over a get's four or five calls: on two cores that
 * thread also hashes what the get reads, so every microsecond of it is one of the get's.
 * Closed by its reader; one dropped open is closed by the garbage collector, with a warning,
 * as Node does for a FileHandle.
 */
export class ReadOnlyFile {
  readonly fd: number;
  #closed = false;

  private constructor(fd: number, path: string) {
    this.fd = fd;
    dropped.register(this, { fd, path }, this);
  }

  /** Opens a file without following a symbolic link; undefined if absent. */
  static open(path: string): Promise<ReadOnlyFile | undefined> {
    return new Promise((resolve, reject) => {
      open(path, READ_FLAGS, (error, fd) => {
        if (error === null) resolve(new ReadOnlyFile(fd, path));
        else if (error.code === "ENOENT") resolve(undefined);
        else reject(error);
      });
    });
  }

  /** Reads up to `length` bytes at `position` into `buffer` from `offset`. */
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }> {
    return new Promise((resolve, reject) => {
      read(this.fd, buffer, offset, length, position, (error, bytesRead) =>
        error ? reject(error) : resolve({ bytesRead }),
      );
    });
  }

  stat(): Promise<Stats> {
    return new Promise((resolve, reject) => {
      fstat(this.fd, (error, stats) => (error ? reject(error) : resolve(stats)));
    });
  }

  /** Closes the descriptor once; later calls do nothing. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    dropped.unregister(this);
    return new Promise((resolve, reject) => {
      close(this.fd, (error) => (error ? reject(error) : resolve()));
    });
  }
}
