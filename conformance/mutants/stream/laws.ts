import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  type ArtifactService,
  isArtifactError,
  type Scope,
  TRANSFER_BLOCK_BYTES,
} from "@artifact-kit/core";
import { contractOnly } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import type * as Stream from "@artifact-kit/stream";
import { expect, vi } from "vitest";

// Laws of the stream package's opt-in buffering that the artifact kit over a buffered
// adapter cannot see (they need the adapter to act between the buffering's own steps, or
// measure what it holds), each over a stream module: the package itself, or a patched copy.

export type StreamModule = Pick<typeof Stream, "openUpload" | "openDownload">;
export interface BufferingLaw {
  name: string;
  run(stream: StreamModule): Promise<void>;
}

const MiB = 1024 * 1024;
const scope: Scope = { kind: "app", app: "buffering-laws" };
const BOUND = 1000;

/** A memory store without native transfer, as an adapter that never implemented it. */
function plainMemory(): ArtifactService {
  const memory = new MemoryArtifactService();
  const { transfer: _transfer, ...capabilities } = memory.capabilities();
  return contractOnly(memory, () => capabilities);
}

/** `size` bytes in which no 1 KiB repeats soon, with `seed` telling two payloads apart. */
function patterned(size: number, seed = 0): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >>> 10) + seed) & 0xff;
  return bytes;
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const joined = (chunks: Uint8Array[]) => Buffer.concat(chunks);

/** The service, running `after` once, right after its first head answers. */
function afterFirstHead(service: ArtifactService, after: () => Promise<unknown>): ArtifactService {
  let first = true;
  return {
    ...service,
    head: async (...args) => {
      const meta = await service.head(...args);
      if (first) {
        first = false;
        await after();
      }
      return meta;
    },
  };
}

/** Bytes held in ArrayBuffers once everything unreachable is collected. */
function heldBytes(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

export const BUFFERING_LAWS: readonly BufferingLaw[] = [
  {
    // The whole artifact is loaded for any range of it: the bound is on what is held.
    name: "a range of an artifact past the bound is refused, however short the range",
    async run({ openDownload }) {
      const plain = plainMemory();
      await plain.put(scope, "big", patterned(BOUND + 1));
      const range = { offset: BOUND - 9, length: 10 };
      const download = openDownload(plain, scope, "big", { buffering: { maxBytes: BOUND }, range });
      await expect(collect(download)).rejects.toMatchObject({ code: "artifact_too_large" });
    },
  },
  {
    name: "a latest that grows past the bound between the size check and the read: the version measured is served",
    async run({ openDownload }) {
      const memory = plainMemory();
      const small = patterned(BOUND / 2);
      await memory.put(scope, "grows", small);
      const plain = afterFirstHead(memory, () => memory.put(scope, "grows", patterned(4 * BOUND)));
      const download = openDownload(plain, scope, "grows", { buffering: { maxBytes: BOUND } });
      expect(joined(await collect(download)).equals(small)).toBe(true);
      expect((await download.meta).version).toBe(1);
    },
  },
  {
    name: "a latest deleted between the size check and the read: the version before it is served",
    async run({ openDownload }) {
      const memory = plainMemory();
      const older = patterned(BOUND / 2, 1);
      await memory.put(scope, "shrinks", older);
      await memory.put(scope, "shrinks", patterned(BOUND / 2, 2));
      const plain = afterFirstHead(memory, () => memory.delete(scope, "shrinks", "latest"));
      const download = openDownload(plain, scope, "shrinks", { buffering: { maxBytes: BOUND } });
      expect(joined(await collect(download)).equals(older)).toBe(true);
      expect((await download.meta).version).toBe(1);
    },
  },
  {
    name: "an upload whose owner goes away while its put is in flight publishes nothing",
    async run({ openUpload }) {
      const memory = plainMemory();
      const owner = new AbortController();
      // The owner leaves as the put starts: a put given the upload's signal sees it aborted.
      const plain: ArtifactService = {
        ...memory,
        put: (...args) => {
          owner.abort();
          return memory.put(...args);
        },
      };
      const upload = openUpload(plain, scope, "left", {
        buffering: { maxBytes: BOUND },
        signal: owner.signal,
      });
      await upload.write(patterned(10));
      await expect(upload.finish()).rejects.toMatchObject({ code: "aborted" });
      await expect(memory.head(scope, "left")).rejects.toMatchObject({ code: "not_found" });
    },
  },
  {
    name: "the whole-artifact read carries the download's signal: the adapter can stop it",
    async run({ openDownload }) {
      const memory = plainMemory();
      await memory.put(scope, "held", patterned(10));
      const owner = new AbortController();
      const signals: (AbortSignal | undefined)[] = [];
      const plain: ArtifactService = {
        ...memory,
        get: (name, path, options) => {
          signals.push(options?.signal);
          owner.abort();
          return memory.get(name, path, options);
        },
      };
      const download = openDownload(plain, scope, "held", {
        buffering: { maxBytes: BOUND },
        signal: owner.signal,
      });
      await expect(collect(download)).rejects.toMatchObject({ code: "aborted" });
      expect(signals.length, "the download reads the artifact once").toBe(1);
      expect(signals[0]?.aborted, "the read's signal aborted with the download's").toBe(true);
    },
  },
  {
    // The README's promise: one verification block at a time, even to a reader of larger chunks.
    name: "a download serves one block at a time, however large the reader's chunks",
    async run({ openDownload }) {
      const plain = plainMemory();
      const data = patterned(2 * TRANSFER_BLOCK_BYTES + 5);
      await plain.put(scope, "blocks", data);
      const download = openDownload(plain, scope, "blocks", {
        buffering: { maxBytes: 4 * MiB },
        chunkBytes: 16 * MiB,
      });
      const chunks = await collect(download);
      expect(chunks.map((chunk) => chunk.byteLength)).toEqual([
        TRANSFER_BLOCK_BYTES,
        TRANSFER_BLOCK_BYTES,
        5,
      ]);
      expect(joined(chunks).equals(data)).toBe(true);
    },
  },
  {
    name: "a download whose deadline passes between reads fails before it ends",
    async run({ openDownload }) {
      const plain = plainMemory();
      await plain.put(scope, "slow", patterned(4 * TRANSFER_BLOCK_BYTES));
      const download = openDownload(plain, scope, "slow", {
        buffering: { maxBytes: 8 * MiB },
        timeoutMs: 60_000,
      });
      const reader = download.getReader();
      await reader.read();
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(Date.now() + 60_001);
        let failure: unknown;
        for (;;) {
          const step = await reader.read().catch((error: unknown) => {
            failure = error;
            return { done: true };
          });
          if (step.done) break;
        }
        expect(isArtifactError(failure, "timeout"), `ended with ${String(failure)}`).toBe(true);
      } finally {
        vi.useRealTimers();
      }
    },
  },
  {
    name: "a finished upload and a cancelled download give their bytes back while the caller holds them",
    async run({ openUpload, openDownload }) {
      const HELD = 16 * MiB;
      const memory = plainMemory();
      const before = heldBytes();
      const upload = openUpload(memory, scope, "kept", { buffering: { maxBytes: HELD } });
      for (let i = 0; i < HELD / MiB; i++) await upload.write(patterned(MiB));
      await upload.finish();
      // The store holds one copy; a finished upload holds none.
      expect(heldBytes() - before, "bytes held after the upload finished").toBeLessThan(
        HELD + HELD / 2,
      );
      const download = openDownload(memory, scope, "kept", { buffering: { maxBytes: HELD } });
      const reader = download.getReader();
      await reader.read();
      await reader.cancel();
      expect(heldBytes() - before, "bytes held after the download was cancelled").toBeLessThan(
        HELD + HELD / 2,
      );
      expect([upload, download]).toHaveLength(2);
    },
  },
];
