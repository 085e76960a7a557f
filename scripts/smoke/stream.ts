import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ArtifactService, Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { openDownload, openUpload } from "@artifact-kit/stream";

const service = new MemoryArtifactService();
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const pieces = [new TextEncoder().encode("hello, "), new TextEncoder().encode("stream")];

const upload = openUpload(service, scope, "hello.txt", { mimeType: "text/plain", chunkBytes: 4 });
await pipeline(Readable.from(pieces), upload.toNodeWritable());
const meta = await upload.meta;

/** Everything a download streams, as text, through Node's pipeline. */
async function readText(download: ReturnType<typeof openDownload>): Promise<string> {
  let text = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString("utf8");
      done();
    },
  });
  await pipeline(download.toNodeReadable(), sink);
  return text;
}
const text = await readText(
  openDownload(service, scope, "hello.txt", { range: { offset: 7, length: 99 } }),
);
if (text !== "stream") throw new Error(`range round trip failed: ${text}`);

// An adapter without native transfer, reached only by opting in to bounded buffering.
const { transfer: _native, ...plainCapabilities } = service.capabilities();
const plain: ArtifactService = {
  capabilities: () => plainCapabilities,
  put: (...args) => service.put(...args),
  get: (...args) => service.get(...args),
  head: (...args) => service.head(...args),
  delete: (...args) => service.delete(...args),
  listNames: (...args) => service.listNames(...args),
  listVersions: (...args) => service.listVersions(...args),
  list: (...args) => service.list(...args),
  listScopes: (...args) => service.listScopes(...args),
  close: () => service.close(),
};
const buffering = { maxBytes: 1024 };
const buffered = openUpload(plain, scope, "notes.txt", { buffering });
await pipeline(Readable.from(pieces), buffered.toNodeWritable());
const bufferedMeta = await buffered.meta;
const bufferedText = await readText(openDownload(plain, scope, "notes.txt", { buffering }));
if (bufferedText !== "hello, stream")
  throw new Error(`buffered round trip failed: ${bufferedText}`);
await service.close();
console.log(
  `stream: uploaded v${meta.version} (${meta.size} bytes) and read a range back; buffered v${bufferedMeta.version} through put/get`,
);
