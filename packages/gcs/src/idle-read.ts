import { unavailable } from "@artifact-kit/core";
import { joinBytes } from "@artifact-kit/object-store";

// @google-cloud/storage 7 reads through node-fetch 2, whose body never ends nor fails when the
// connection closes in the middle of a reply with a Content-Length: a download, a ranged read
// or a listing cut there waits forever (with no deadline, or for a write's reply, which is
// not raced against it). So each read waits at most `idleMs` for the server's next bytes;
// a consumer that is slow to ask for them costs nothing (the wait runs only while it asks).

/** How long a read waits for the server's next bytes by default: a minute. */
export const DEFAULT_READ_IDLE_MS = 60_000;

/**
 * The chunks of `stream`, failing with `unavailable` when one is awaited for `idleMs` without
 * arriving; the stream is destroyed once iteration ends, however it ends.
 */
export async function* idleGuarded(
  stream: AsyncIterable<unknown> & { destroy(error?: Error): unknown },
  idleMs: number,
  operation: string,
): AsyncGenerator<Uint8Array> {
  const chunks = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(unavailable(`${operation}: no bytes from the server for ${idleMs} ms`)),
          idleMs,
        );
      });
      try {
        // race subscribes to both: the loser's later settlement is handled.
        const next = await Promise.race([chunks.next(), idle]);
        if (next.done) return;
        yield next.value as Uint8Array;
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    stream.destroy();
  }
}

/** All of `stream`'s bytes, under the same wait for each chunk. */
export async function readAll(
  stream: AsyncIterable<unknown> & { destroy(error?: Error): unknown },
  idleMs: number,
  operation: string,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of idleGuarded(stream, idleMs, operation)) chunks.push(chunk);
  return joinBytes(chunks);
}
