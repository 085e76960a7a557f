import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ArtifactService, Scope } from "@artifact-kit/core";
import { describeArtifactService, flipFileByte } from "@artifact-kit/core/conformance";
import { FsArtifactService, fsArtifactPaths, fsPayloadLocation } from "@artifact-kit/fs";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { openDownload, openUpload } from "../src/index.js";
import { codeOf, MiB, patterned } from "./helpers.js";
import { servedByBuffering, withoutNativeTransfer } from "./plain-service.js";

const scope: Scope = { kind: "app", app: "buffered" };
const buffering = { maxBytes: 4 * MiB };

async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A plain store that counts the whole-artifact reads it serves. */
function countingGets(service: ArtifactService) {
  const counted = { service, gets: 0 };
  const get = service.get.bind(service);
  counted.service = {
    ...service,
    get: (...args) => {
      counted.gets += 1;
      return get(...args);
    },
  };
  return counted;
}

describe("opt-in buffering for an adapter without native transfer", () => {
  it("uploads through pipeline and downloads whole and by range", async () => {
    const plain = withoutNativeTransfer(new MemoryArtifactService());
    const data = patterned(3 * MiB + 17);
    const upload = openUpload(plain, scope, "report.bin", { buffering, mimeType: "x/y" });
    await pipeline(
      Readable.from([data.subarray(0, MiB + 5), data.subarray(MiB + 5)]),
      upload.toNodeWritable(),
    );
    const meta = await upload.meta;
    expect(meta).toMatchObject({ version: 1, size: data.byteLength, mimeType: "x/y" });
    expect(Buffer.from((await plain.get(scope, "report.bin")).data).equals(data)).toBe(true);

    const whole = await collect(openDownload(plain, scope, "report.bin", { buffering }));
    expect(whole.equals(data)).toBe(true);
    const range = { offset: MiB - 3, length: MiB + 10 };
    const part = await collect(openDownload(plain, scope, "report.bin", { buffering, range }));
    expect(part.equals(data.subarray(range.offset, range.offset + range.length))).toBe(true);
  });

  it("refuses an upload past maxBytes with artifact_too_large and publishes nothing", async () => {
    const plain = withoutNativeTransfer(new MemoryArtifactService());
    const upload = openUpload(plain, scope, "big.bin", { buffering: { maxBytes: MiB } });
    await upload.write(patterned(MiB));
    expect(await codeOf(() => upload.write(new Uint8Array(1)))).toBe("artifact_too_large");
    expect(await codeOf(() => plain.head(scope, "big.bin"))).toBe("not_found");
  });

  it("refuses an upload past the adapter's maxArtifactBytes as it is written", async () => {
    const plain = withoutNativeTransfer(new MemoryArtifactService({ maxArtifactBytes: 1000 }));
    const upload = openUpload(plain, scope, "big.bin", { buffering });
    await upload.write(patterned(1000));
    expect(await codeOf(() => upload.write(new Uint8Array(1)))).toBe("artifact_too_large");
    expect(await codeOf(() => plain.head(scope, "big.bin"))).toBe("not_found");
  });

  it("refuses a download past maxBytes before loading the artifact", async () => {
    const counted = countingGets(withoutNativeTransfer(new MemoryArtifactService()));
    await counted.service.put(scope, "big.bin", patterned(2 * MiB));
    const download = openDownload(counted.service, scope, "big.bin", {
      buffering: { maxBytes: MiB },
    });
    expect(await codeOf(() => collect(download))).toBe("artifact_too_large");
    expect(counted.gets).toBe(0);
  });

  it("rejects a malformed buffering option, even for an adapter that streams natively", () => {
    const memory = new MemoryArtifactService();
    for (const bad of [{ maxBytes: 0 }, { maxBytes: 1.5 }, { maxBytes: 1, extra: 1 }, null]) {
      const buffering = bad as unknown as { maxBytes: number };
      expect(() => openUpload(memory, scope, "x", { buffering })).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
      expect(() => openDownload(memory, scope, "x", { buffering })).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });

  it("leaves an adapter's native transfer in charge when it has one", async () => {
    const memory = new MemoryArtifactService();
    // Larger than the buffering bound: only a native upload carries it.
    const data = patterned(2 * MiB);
    const upload = openUpload(memory, scope, "native.bin", { buffering: { maxBytes: MiB } });
    await upload.write(data);
    expect((await upload.finish()).size).toBe(data.byteLength);
  });
});

async function bufferedFs(root: string): Promise<ArtifactService> {
  return servedByBuffering(await FsArtifactService.open({ root }), buffering);
}

describeArtifactService("buffered transfer over fs", {
  create: async () => {
    const root = await mkdtemp(join(tmpdir(), "artifact-kit-buffered-"));
    return {
      service: await bufferedFs(root),
      reopen: () => bufferedFs(root),
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  },
  // No corrupt hook: buffering verifies the whole artifact, so even a range of an intact block
  // of a damaged artifact fails (tested below), where the kit expects that range to be served.
  numRuns: 20,
});

describe("buffering over a damaged store", () => {
  it("fails a full download and every range with corrupt_artifact", async () => {
    const root = await mkdtemp(join(tmpdir(), "artifact-kit-buffered-"));
    try {
      const service = withoutNativeTransfer(await FsArtifactService.open({ root }));
      const meta = await service.put(scope, "data.bin", patterned(2 * MiB));
      // The second block is damaged; the first is intact, yet buffering refuses it too.
      const payload = await fsPayloadLocation(
        fsArtifactPaths(root, meta.scope, meta.name, meta.version),
      );
      await flipFileByte(payload.path, payload.offset + MiB + 10);
      for (const range of [
        { offset: 0, length: 2 * MiB },
        { offset: 0, length: 10 },
      ]) {
        const download = openDownload(service, scope, "data.bin", { buffering, range });
        expect(await codeOf(() => collect(download))).toBe("corrupt_artifact");
      }
      const whole = openDownload(service, scope, "data.bin", { buffering });
      expect(await codeOf(() => collect(whole))).toBe("corrupt_artifact");
      await service.close();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
