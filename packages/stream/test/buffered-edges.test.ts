import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ArtifactService, Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { openDownload, openUpload } from "../src/index.js";
import { codeOf, MiB, patterned } from "./helpers.js";
import { withoutNativeTransfer } from "./plain-service.js";

// Buffering at its edges: the byte bound exactly and one byte past (whole, split at every
// kind of cut, and under the adapter's own ceiling), buffered bytes given back when an upload
// fails or is aborted, and keyed retries that publish one version.

const scope: Scope = { kind: "app", app: "buffered-edges" };
const BOUND = 1000;

async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** `data` cut into pieces of the given sizes (the rest in one last piece). */
function cut(data: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const size of sizes) {
    pieces.push(data.subarray(at, at + size));
    at += size;
  }
  if (at < data.byteLength) pieces.push(data.subarray(at));
  return pieces;
}

const CUTS: readonly (readonly number[])[] = [[], [1], [BOUND - 1], [0, 500, 0], [333, 333, 333]];

async function upload(
  service: ArtifactService,
  name: string,
  pieces: Uint8Array[],
  maxBytes: number,
) {
  const sink = openUpload(service, scope, name, { buffering: { maxBytes } });
  for (const piece of pieces) await sink.write(piece);
  return sink.finish();
}

describe("buffered uploads at the byte bound", () => {
  for (const sizes of CUTS) {
    it(`exactly maxBytes publishes, one byte more is refused (cut ${JSON.stringify(sizes)})`, async () => {
      const plain = withoutNativeTransfer(new MemoryArtifactService());
      const exact = patterned(BOUND);
      const meta = await upload(plain, "exact", cut(exact, sizes), BOUND);
      expect(meta.size).toBe(BOUND);
      expect(Buffer.from((await plain.get(scope, "exact")).data).equals(exact)).toBe(true);
      const over = patterned(BOUND + 1);
      expect(await codeOf(() => upload(plain, "over", cut(over, sizes), BOUND))).toBe(
        "artifact_too_large",
      );
      expect(await codeOf(() => plain.head(scope, "over"))).toBe("not_found");
    });
  }

  it("under a smaller adapter ceiling: exactly the ceiling publishes, one byte more is refused", async () => {
    const plain = withoutNativeTransfer(new MemoryArtifactService({ maxArtifactBytes: BOUND - 7 }));
    expect((await upload(plain, "exact", cut(patterned(BOUND - 7), [100]), BOUND)).size).toBe(
      BOUND - 7,
    );
    expect(await codeOf(() => upload(plain, "over", cut(patterned(BOUND - 6), [100]), BOUND))).toBe(
      "artifact_too_large",
    );
    expect(await codeOf(() => plain.head(scope, "over"))).toBe("not_found");
  });

  it("downloads exactly maxBytes, whole and by range, and refuses one byte more", async () => {
    const plain = withoutNativeTransfer(new MemoryArtifactService());
    const exact = patterned(BOUND);
    await plain.put(scope, "exact", exact);
    await plain.put(scope, "over", patterned(BOUND + 1));
    const buffering = { maxBytes: BOUND };
    expect((await collect(openDownload(plain, scope, "exact", { buffering }))).equals(exact)).toBe(
      true,
    );
    const range = { offset: BOUND - 1, length: 1 };
    const last = await collect(openDownload(plain, scope, "exact", { buffering, range }));
    expect([...last]).toEqual([exact[BOUND - 1]]);
    const over = openDownload(plain, scope, "over", { buffering });
    // The refusal says why: the artifact's size and the bound it passed.
    await expect(collect(over)).rejects.toMatchObject({
      code: "artifact_too_large",
      detail: { limit: "max_bytes", bound: BOUND },
      message: expect.stringMatching(new RegExp(`\\b${BOUND + 1}\\b.*\\b${BOUND}\\b`)),
    });
  });

  it("a malformed buffering option is refused naming its field", () => {
    const plain = withoutNativeTransfer(new MemoryArtifactService());
    for (const [buffering, field] of [
      [{ maxBytes: 0 }, "buffering.maxBytes"],
      [{ maxBytes: 1, extra: 1 }, "buffering.extra"],
    ] as const) {
      expect(() => openUpload(plain, scope, "x", { buffering: buffering as never })).toThrow(
        expect.objectContaining({ code: "invalid_argument", detail: { field } }),
      );
    }
  });

  // The upload hashed what it was given: a put that reports other bytes is not believed.
  for (const [what, lie] of [
    ["digest", { sha256: "0".repeat(64) }],
    ["size", { size: 1 }],
  ] as const) {
    it(`an adapter's put reporting another ${what} than was uploaded is invalid_service_reply`, async () => {
      const memory = withoutNativeTransfer(new MemoryArtifactService());
      const lying: ArtifactService = {
        ...memory,
        put: async (...args) => ({ ...(await memory.put(...args)), ...lie }),
      };
      expect(await codeOf(() => upload(lying, "lied", [patterned(10)], BOUND))).toBe(
        "invalid_service_reply",
      );
    });
  }
});

/** Bytes held in ArrayBuffers once everything unreachable is collected. */
function heldBytes(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

const HELD = 16 * MiB;
/** Two forced collections per measure: slow on a loaded machine, so never timed. */
const GC_TIMEOUT_MS = 120_000;
type How = "aborted" | "refused one byte past its bound" | "its signal aborted";
type Sink = Pick<ReturnType<typeof openUpload>, "write" | "abort">;
type OpenSink = (service: ArtifactService, signal: AbortSignal) => Sink;

const openBuffered: OpenSink = (service, signal) =>
  openUpload(service, scope, "big", { buffering: { maxBytes: HELD }, signal });

/** Buffers HELD bytes, ends the upload `how`, and expects them given back (most of them). */
async function givesBackWhatItBuffered(how: How, open: OpenSink) {
  const plain = withoutNativeTransfer(new MemoryArtifactService());
  const controller = new AbortController();
  const chunk = patterned(MiB);
  const before = heldBytes();
  const sink = open(plain, controller.signal);
  for (let i = 0; i < HELD / MiB; i++) await sink.write(chunk);
  expect(heldBytes() - before, "the upload buffers what it was given").toBeGreaterThan(HELD / 2);
  if (how === "aborted") await sink.abort();
  else if (how === "its signal aborted") controller.abort();
  // The refusal itself, or a write after the upload ended, fails however it reports it.
  const late = await sink.write(new Uint8Array(1)).then(
    () => "written",
    () => "refused",
  );
  expect(late).toBe("refused");
  expect(heldBytes() - before, "bytes still held after the upload ended").toBeLessThan(HELD / 2);
  expect(await codeOf(() => plain.head(scope, "big"))).toBe("not_found");
  // The caller holds the upload to the end: only the upload's own release frees the bytes.
  expect(sink).toBeDefined();
}

/** A mutant: an upload that keeps a copy of every chunk, for a retry that never comes. */
const keepsItsChunks: OpenSink = (service, signal) => {
  const inner = openBuffered(service, signal);
  const kept: Uint8Array[] = [];
  return {
    write: (chunk) => {
      kept.push(new Uint8Array(chunk));
      return inner.write(chunk);
    },
    abort: (reason) => inner.abort(reason),
  };
};

describe("buffered bytes are given back", () => {
  for (const how of ["aborted", "refused one byte past its bound", "its signal aborted"] as const) {
    it(
      `by an upload ${how}, while the caller still holds it`,
      () => givesBackWhatItBuffered(how, openBuffered),
      GC_TIMEOUT_MS,
    );
  }

  it(
    "the law rejects an upload that keeps its chunks after it ended",
    async () => {
      await expect(givesBackWhatItBuffered("aborted", keepsItsChunks)).rejects.toThrow(
        /still held/,
      );
    },
    GC_TIMEOUT_MS,
  );
});

/** The service, losing the reply of its next put after the put has landed. */
function losingNextPut(service: ArtifactService) {
  const state = { lose: true };
  const put: ArtifactService["put"] = async (...args) => {
    const meta = await service.put(...args);
    if (state.lose) {
      state.lose = false;
      throw new Error("connection reset after the put landed");
    }
    return meta;
  };
  return { ...service, put };
}

describe("keyed retries of buffered uploads", () => {
  it("publish one version, also after a reply was lost; other bytes under the key are refused", async () => {
    const memory = withoutNativeTransfer(new MemoryArtifactService());
    const plain = losingNextPut(memory);
    const data = patterned(3 * 1024);
    const keyed = (bytes: Uint8Array) => {
      const sink = openUpload(plain, scope, "keyed", {
        buffering: { maxBytes: BOUND * 10 },
        idempotencyKey: "retry-1",
      });
      return (async () => {
        for (const piece of cut(bytes, [1024, 1])) await sink.write(piece);
        return sink.finish();
      })();
    };
    await expect(keyed(data)).rejects.toBeDefined();
    const retried = await keyed(data);
    const again = await keyed(data);
    expect([retried.version, again.version]).toEqual([1, 1]);
    expect((await memory.listVersions(scope, "keyed")).items.map((meta) => meta.version)).toEqual([
      1,
    ]);
    const other = patterned(3 * 1024 + 1);
    expect(await codeOf(() => keyed(other))).toBe("invalid_argument");
    expect((await memory.listVersions(scope, "keyed")).items).toHaveLength(1);
  });
});
