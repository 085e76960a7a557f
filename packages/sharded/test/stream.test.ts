import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Scope } from "@artifact-kit/core";
import { openDownload, openUpload } from "@artifact-kit/stream";
import { describe, expect, it } from "vitest";
import { createArtifactRuntime, ShardedArtifactService } from "../src/index.js";
import { ScriptedShards } from "./fixtures.js";

const MiB = 1024 * 1024;
const scope: Scope = { kind: "session", app: "reports", user: "ada", session: "s1" };

function patterned(size: number): Uint8Array {
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = (i * 31 + (i >>> 11)) & 0xff;
  return data;
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("@artifact-kit/stream through the router", () => {
  it("streams a file in with pipeline and out, whole and by range, on durable_local", async () => {
    const root = await mkdtemp(join(tmpdir(), "artifact-kit-sharded-stream-"));
    const runtime = await createArtifactRuntime("durable_local", { root });
    try {
      const data = patterned(3 * MiB + 5);
      const upload = openUpload(runtime, scope, "dataset.bin", { mimeType: "application/x-data" });
      await pipeline(
        Readable.from([data.subarray(0, 2 * MiB + 1), data.subarray(2 * MiB + 1)]),
        upload.toNodeWritable(),
      );
      expect(await upload.meta).toMatchObject({ version: 1, size: data.byteLength });

      expect((await collect(openDownload(runtime, scope, "dataset.bin"))).equals(data)).toBe(true);
      const range = { offset: MiB - 7, length: MiB + 14 };
      const slice = await collect(openDownload(runtime, scope, "dataset.bin", { range }));
      expect(slice.equals(data.subarray(range.offset, range.offset + range.length))).toBe(true);
      expect(runtime.status()).toMatchObject({ activeScopes: 1 });
    } finally {
      await runtime.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it("is unsupported_transfer through a router whose workers have no transfer", () => {
    const router = new ShardedArtifactService(new ScriptedShards("volatile"));
    expect(() => openUpload(router, scope, "x")).toThrow(
      expect.objectContaining({ code: "unsupported_transfer" }),
    );
    expect(() => openDownload(router, scope, "x", { range: { offset: 0, length: 1 } })).toThrow(
      expect.objectContaining({ code: "unsupported_transfer" }),
    );
  });
});
