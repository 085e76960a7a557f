import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { openDownload, openUpload } from "@artifact-kit/stream";

const service = new MemoryArtifactService();
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const pieces = [new TextEncoder().encode("hello, "), new TextEncoder().encode("stream")];

const upload = openUpload(service, scope, "hello.txt", { mimeType: "text/plain", chunkBytes: 4 });
await pipeline(Readable.from(pieces), upload.toNodeWritable());
const meta = await upload.meta;

let text = "";
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    text += chunk.toString("utf8");
    done();
  },
});
const download = openDownload(service, scope, "hello.txt", { range: { offset: 7, length: 99 } });
await pipeline(download.toNodeReadable(), sink);
if (text !== "stream") throw new Error(`range round trip failed: ${text}`);
await service.close();
console.log(`stream: uploaded v${meta.version} (${meta.size} bytes) and read a range back`);
