import type { BaseArtifactService, LoadArtifactRequest, SaveArtifactRequest } from "@google/adk";
import type { StoreUnderTest } from "./store.js";

type Part = SaveArtifactRequest["artifact"];

const APP = "bench";
const USER = "user-1";
const SESSION = "session-1";

// The peer's requests are written out as literals: on Node 20, spreading a shared session
// object into each request costs microseconds, which would be charged to the peer.
function keyOf(filename: string): LoadArtifactRequest {
  return { appName: APP, userId: USER, sessionId: SESSION, filename };
}

function saveRequestOf(filename: string, artifact: Part): SaveArtifactRequest {
  return { appName: APP, userId: USER, sessionId: SESSION, filename, artifact };
}
const MIME_TYPE = "application/octet-stream";

interface AdkStoreOptions {
  /**
   * false: hand the peer a Part encoded once, outside the timed path, and keep the Part it
   * returns (its API as-is). true: encode bytes to base64 on every put and decode on every
   * get, which is what a caller holding a Uint8Array pays to use it.
   */
  readonly bytesInOut: boolean;
  /**
   * Untimed, on reset before the new service opens: empty the backing store that outlives a
   * service instance (a bucket). In-memory and per-directory peers need none.
   */
  readonly clear?: () => Promise<void>;
}

/** `@google/adk`'s artifact services (the peer), called through their real request types. */
export class AdkStore implements StoreUnderTest {
  readonly #open: () => BaseArtifactService;
  readonly #bytesInOut: boolean;
  readonly #clear: (() => Promise<void>) | undefined;
  readonly #encoded = new WeakMap<Uint8Array, Part>();
  #service: BaseArtifactService;

  constructor(open: () => BaseArtifactService, options: AdkStoreOptions) {
    this.#open = open;
    this.#bytesInOut = options.bytesInOut;
    this.#clear = options.clear;
    this.#service = open();
  }

  put(name: string, bytes: Uint8Array) {
    return this.#service.saveArtifact(saveRequestOf(name, this.#partOf(bytes)));
  }

  async getLatest(name: string): Promise<Part | Uint8Array> {
    const part = await this.#service.loadArtifact(keyOf(name));
    const data = part?.inlineData?.data;
    if (!part || data === undefined) throw new Error(`peer lost artifact "${name}"`);
    return this.#bytesInOut ? Buffer.from(data, "base64") : part;
  }

  listVersions(name: string) {
    return this.#service.listVersions(keyOf(name));
  }

  async reset() {
    await this.#clear?.();
    this.#service = this.#open();
  }

  async close() {}

  #partOf(bytes: Uint8Array): Part {
    if (this.#bytesInOut) return inlinePart(bytes);
    let part = this.#encoded.get(bytes);
    if (!part) {
      part = inlinePart(bytes);
      this.#encoded.set(bytes, part);
    }
    return part;
  }
}

function inlinePart(bytes: Uint8Array): Part {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return { inlineData: { data, mimeType: MIME_TYPE } };
}
