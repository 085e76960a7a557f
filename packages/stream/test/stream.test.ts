import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  ArtifactError,
  type DownloadSource,
  type Scope,
  type UploadSink,
} from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDownload, openUpload } from "../src/index.js";
import { codeOf, MiB, patterned } from "./helpers.js";
import { withoutNativeTransfer } from "./plain-service.js";

const scope: Scope = { kind: "session", app: "stream", user: "ada", session: "s1" };

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const joined = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks);

/** Memory, with the adapter's side of every transfer observed. */
class Observed extends MemoryArtifactService {
  inFlight = 0;
  maxInFlight = 0;
  writes: number[] = [];
  reads = 0;
  cancelled = 0;

  override async openUpload(...args: Parameters<MemoryArtifactService["openUpload"]>) {
    const sink = await super.openUpload(...args);
    return {
      write: async (chunk: Uint8Array) => {
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        this.writes.push(chunk.byteLength);
        await new Promise((resolve) => setTimeout(resolve, 1));
        try {
          await sink.write(chunk);
        } finally {
          this.inFlight -= 1;
        }
      },
      finish: () => sink.finish(),
      abort: (reason?: unknown) => sink.abort(reason),
    } satisfies UploadSink;
  }

  override async openDownload(...args: Parameters<MemoryArtifactService["openDownload"]>) {
    const source = await super.openDownload(...args);
    return {
      meta: source.meta,
      offset: source.offset,
      length: source.length,
      read: () => {
        this.reads += 1;
        return source.read();
      },
      cancel: () => {
        this.cancelled += 1;
        return source.cancel();
      },
    } satisfies DownloadSource;
  }
}

describe("@artifact-kit/stream", () => {
  let service: Observed;
  let dir: string;
  beforeEach(async () => {
    service = new Observed();
    dir = await mkdtemp(join(tmpdir(), "artifact-kit-stream-"));
  });
  afterEach(async () => {
    await service.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("streams a file in and out with Node's pipeline", async () => {
    const data = patterned(3 * MiB + 17);
    await writeFile(join(dir, "in.bin"), data);
    const upload = openUpload(service, scope, "datasets/in.bin", {
      mimeType: "application/x-demo",
    });
    await pipeline(createReadStream(join(dir, "in.bin")), upload.toNodeWritable());
    const meta = await upload.meta;
    expect(meta).toMatchObject({
      version: 1,
      size: data.byteLength,
      mimeType: "application/x-demo",
    });
    expect(meta.sha256).toBe((await service.head(scope, "datasets/in.bin")).sha256);

    await pipeline(
      openDownload(service, scope, "datasets/in.bin"),
      createWriteStream(join(dir, "out.bin")),
    );
    expect(Buffer.compare(await readFile(join(dir, "out.bin")), data)).toBe(0);
    const node = openDownload(service, scope, "datasets/in.bin").toNodeReadable();
    await pipeline(node, createWriteStream(join(dir, "again.bin")));
    expect(Buffer.compare(await readFile(join(dir, "again.bin")), data)).toBe(0);
  });

  it("is a destination of Node's pipeline as a WHATWG WritableStream too", async () => {
    const upload = openUpload(service, scope, "web");
    const web: unknown = upload;
    await pipeline(Readable.from([patterned(3), patterned(4)]), web as NodeJS.WritableStream);
    expect((await upload.meta).size).toBe(7);
  });

  it("keeps at most one chunk in flight and splits writes into chunkBytes", async () => {
    const upload = openUpload(service, scope, "split", { chunkBytes: 4 });
    const writer = upload.getWriter();
    await Promise.all([writer.write(patterned(10)), writer.write(patterned(3)), writer.close()]);
    expect(service.writes).toEqual([4, 4, 2, 3]);
    expect(service.maxInFlight).toBe(1);
    expect((await upload.meta).size).toBe(13);
  });

  it("offers write / finish / abort without a writer, and abort publishes nothing", async () => {
    const kept = openUpload(service, scope, "kept");
    await kept.write(patterned(5));
    expect((await kept.finish()).size).toBe(5);

    const dropped = openUpload(service, scope, "dropped");
    await dropped.write(patterned(5));
    await dropped.abort(new Error("no longer wanted"));
    expect(await codeOf(() => dropped.meta)).toBe("aborted");
    expect(await codeOf(() => service.get(scope, "dropped"))).toBe("not_found");
  });

  it("fails an upload past maxBytes with artifact_too_large and publishes nothing", async () => {
    await writeFile(join(dir, "big.bin"), patterned(100));
    const upload = openUpload(service, scope, "big", { maxBytes: 64, chunkBytes: 16 });
    expect(
      await codeOf(() => pipeline(createReadStream(join(dir, "big.bin")), upload.toNodeWritable())),
    ).toBe("artifact_too_large");
    expect(await codeOf(() => service.get(scope, "big"))).toBe("not_found");
  });

  it("fails an upload whose signal aborts mid-way and publishes nothing", async () => {
    const controller = new AbortController();
    const upload = openUpload(service, scope, "cut", { signal: controller.signal });
    await upload.write(patterned(10));
    controller.abort();
    expect(await codeOf(() => upload.finish())).toBe("aborted");
    expect(await codeOf(() => service.get(scope, "cut"))).toBe("not_found");
  });

  it("reads no further ahead than one chunk, and cancel releases the source", async () => {
    await service.put(scope, "big", patterned(3 * MiB));
    const download = openDownload(service, scope, "big", { chunkBytes: MiB });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(service.reads).toBe(1); // the one chunk of read-ahead
    const reader = download.getReader();
    expect((await reader.read()).value?.byteLength).toBe(MiB);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(service.reads).toBe(2);
    await reader.cancel();
    expect(service.cancelled).toBe(1);
  });

  it("serves ranges as slices, with the served range and meta", async () => {
    const data = patterned(2 * MiB + 5);
    await service.put(scope, "r", data);
    const download = openDownload(service, scope, "r", { range: { offset: MiB - 2, length: 10 } });
    expect(joined(await collect(download))).toEqual(Buffer.from(data.slice(MiB - 2, MiB + 8)));
    expect(await download.range).toEqual({ offset: MiB - 2, length: 10 });
    expect((await download.meta).size).toBe(data.byteLength);
    const tail = openDownload(service, scope, "r", {
      range: { offset: data.byteLength, length: 3 },
    });
    expect(await collect(tail)).toEqual([]);
  });

  it("refuses an adapter without native transfer with unsupported_transfer", () => {
    const plain = withoutNativeTransfer(new MemoryArtifactService());
    for (const open of [
      () => openUpload(plain, scope, "x"),
      () => openDownload(plain, scope, "x"),
      () => openDownload(plain, scope, "x", { range: { offset: 0, length: 1 } }),
    ]) {
      expect(open).toThrow(expect.objectContaining({ code: "unsupported_transfer" }));
    }
  });

  it("rejects a bad chunkBytes and surfaces open failures on the stream", async () => {
    expect(() => openUpload(service, scope, "x", { chunkBytes: 0 })).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
    expect(() => openDownload(service, scope, "x", { chunkBytes: 64 * MiB })).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
    const missing = openDownload(service, scope, "missing");
    expect(await codeOf(() => collect(missing))).toBe("not_found");
    const badName = openUpload(service, scope, "a/../b");
    expect(await codeOf(() => badName.write(patterned(1)))).toBe("invalid_argument");
  });

  // Memory cannot be corrupted from outside: the source fails as a damaged store's would.
  it("errors the stream on a corrupted block before it can end cleanly", async () => {
    const data = patterned(2 * MiB);
    await service.put(scope, "c", data);
    const corrupting: MemoryArtifactService["openDownload"] = async (...args) => {
      const source = await MemoryArtifactService.prototype.openDownload.apply(service, args);
      let count = 0;
      return {
        ...source,
        meta: source.meta,
        offset: source.offset,
        length: source.length,
        cancel: () => source.cancel(),
        read: async () => {
          count += 1;
          const piece = await source.read();
          if (count === 2) throw new ArtifactError("corrupt_artifact", "block 1 does not match");
          return piece;
        },
      };
    };
    service.openDownload = corrupting;
    const chunks: Uint8Array[] = [];
    await expect(
      (async () => {
        for await (const chunk of openDownload(service, scope, "c")) chunks.push(chunk);
      })(),
    ).rejects.toMatchObject({ code: "corrupt_artifact" });
    expect(chunks.length).toBe(1);
  });
});
