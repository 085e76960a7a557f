import type { FileHandle } from "node:fs/promises";
import { releaseInBackground, syncHandle, type WriteSettings, writeAllOf } from "./io.js";
import type { StagingFile } from "./staging-file.js";

/**
 * A version file being written at its reservation `<v>.r` (version-file.ts), payload in place
 * or on its way; the put protocol (publication.ts) completes it, then publishes it or not.
 */
export interface VersionFileWriter {
  /** Writes the head before the payload and the tail after it. */
  readonly complete: (head: Uint8Array, tail: Uint8Array) => Promise<void>;
  /** Makes the whole file durable (fdatasync), once complete. */
  readonly sync: () => Promise<void>;
  /**
   * Lets go of the file: closes it, after emptying it when it was not published (the
   * reservation stays, its version burned, and holds no payload).
   */
  readonly finish: (published: boolean) => Promise<void>;
}

/** A version file created to hold `bytes`: head, payload and tail in one vectored write. */
export function bytesVersionWriter(
  handle: FileHandle,
  bytes: Uint8Array,
  settings: Pick<WriteSettings, "durability">,
): VersionFileWriter {
  return {
    complete: (head, tail) => writeAllOf(handle, [head, bytes, tail], 0),
    sync: () => syncHandle(handle, settings, true),
    finish: (published) => letGo(handle, published),
  };
}

/** A streamed upload's staging file, its payload written after the room for its head. */
export function uploadVersionWriter(file: StagingFile): VersionFileWriter {
  return {
    complete: async (head, tail) => {
      await writeAllOf(file.handle, [tail], file.position);
      await writeAllOf(file.handle, [head], 0);
    },
    sync: () => file.sync(),
    finish: async (published) => {
      if (!published) await file.handle.truncate(0).catch(() => {});
      await file.close();
    },
  };
}

async function letGo(handle: FileHandle, published: boolean): Promise<void> {
  if (published) {
    releaseInBackground(handle);
    return;
  }
  await handle.truncate(0).catch(() => {});
  await handle.close().catch(() => {});
}
