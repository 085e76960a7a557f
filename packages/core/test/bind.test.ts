import { describe, expect, it } from "vitest";
import {
  type Artifact,
  type ArtifactService,
  type BoundArtifacts,
  bindArtifacts,
  isArtifactError,
  type Scope,
  sha256Hex,
} from "../src/index.js";

// A tiny hand-made service: enough to feed bindArtifacts honest and dishonest replies.
function serviceReturning(reply: (scope: Scope, name: string) => Artifact): ArtifactService {
  const unsupported = () => Promise.reject(new Error("not used"));
  return {
    capabilities: () => ({ pagination: { maxPageLimit: 10, legacyListLimit: 10 } }) as never,
    put: async (scope, name, data) => {
      const { data: _, ...meta } = reply(scope, name);
      return { ...meta, size: data.byteLength };
    },
    get: async (scope, name) => reply(scope, name),
    head: unsupported,
    delete: unsupported,
    listNames: unsupported,
    listVersions: unsupported,
    list: unsupported,
    listScopes: unsupported,
    close: async () => undefined,
  };
}

const scope: Scope = { kind: "session", app: "a", user: "u", session: "s" };
const honest = (s: Scope, name: string): Artifact => ({
  scope: s,
  name,
  version: 1,
  mimeType: "text/plain",
  size: 2,
  sha256: sha256Hex("hi"),
  createdAt: 0,
  metadata: {},
  data: new Uint8Array([104, 105]),
});

async function codeOf(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (error) {
    return isArtifactError(error) ? error.code : "not an ArtifactError";
  }
}

describe("bindArtifacts", () => {
  it("denies operations that were not granted", async () => {
    const bound = bindArtifacts(serviceReturning(honest), scope, { allow: ["get"] });
    // The type offers only the granted methods; the casts reach the others as a caller
    // without types would, and they are denied at run time too.
    const untyped = bound as unknown as BoundArtifacts;
    expect(await codeOf(() => untyped.put("x", new Uint8Array(1)))).toBe("capability_denied");
    expect(await codeOf(() => untyped.delete("x", "all"))).toBe("capability_denied");
    expect(bound.allows("get")).toBe(true);
  });

  it("types a capability with the declared methods only (checked by typecheck)", () => {
    const bound = bindArtifacts(serviceReturning(honest), scope, { allow: ["get"] as const });
    const inline = bindArtifacts(serviceReturning(honest), scope, { allow: ["put", "list"] });
    if (bound.allows("delete")) {
      // @ts-expect-error delete was not declared, so the capability has no delete method
      void bound.delete("x", "all");
      // @ts-expect-error nor put
      void bound.put("x", new Uint8Array(1));
    }
    if (inline.allows("get")) {
      // @ts-expect-error an inline allow list narrows the type the same way
      void inline.get("x");
    }
    expect([typeof bound.get, typeof inline.put, typeof inline.list]).toEqual([
      "function",
      "function",
      "function",
    ]);
  });

  it("denies everything once revoked, including a read already in flight", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = serviceReturning(honest);
    const slowGet = slow.get;
    slow.get = async (...args) => {
      await gate;
      return slowGet(...args);
    };
    const bound = bindArtifacts(slow, scope, { allow: ["get", "put"] });
    const inFlight = codeOf(() => bound.get("x"));
    bound.revoke();
    release();
    expect(await inFlight).toBe("capability_denied");
    expect(await codeOf(() => bound.put("x", new Uint8Array(2)))).toBe("capability_denied");
    expect(bound.allows("get")).toBe(false);
  });

  it("tells the effect listener of each mutation, metadata only", async () => {
    const effects: unknown[] = [];
    const bound = bindArtifacts(serviceReturning(honest), scope, {
      allow: ["put"],
      onEffect: (effect) => effects.push(effect),
    });
    const returned = await bound.put("x", new Uint8Array(2));
    expect(effects).toEqual([returned]);
    expect(() =>
      bindArtifacts(serviceReturning(honest), scope, { allow: [], onEffect: 1 as never }),
    ).toThrow(/onEffect/);
  });

  it("refuses a record for another scope before any data leaves", async () => {
    const other = serviceReturning((_s, name) => honest({ kind: "app", app: "a" }, name));
    const bound = bindArtifacts(other, scope, { allow: ["get", "put"] });
    expect(await codeOf(() => bound.get("x"))).toBe("invalid_service_reply");
    expect(await codeOf(() => bound.put("x", new Uint8Array(2)))).toBe("invalid_service_reply");
  });

  it("returns an honest reply unchanged", async () => {
    const bound = bindArtifacts(serviceReturning(honest), scope, { allow: ["get", "attach"] });
    expect((await bound.get("x")).data).toEqual(new Uint8Array([104, 105]));
    expect((await bound.attach("x")).mimeType).toBe("text/plain");
  });

  it("refuses data that does not match its digest", async () => {
    const tampered = serviceReturning((s, name) => ({
      ...honest(s, name),
      data: new Uint8Array([104, 0]),
    }));
    const bound = bindArtifacts(tampered, scope, { allow: ["get"] });
    expect(await codeOf(() => bound.get("x"))).toBe("invalid_service_reply");
  });

  it("reports a put as a metadata-only effect", async () => {
    const bound = bindArtifacts(serviceReturning(honest), scope, { allow: ["put"] });
    const effect = await bound.put("x", new Uint8Array(2));
    expect(effect).toEqual({
      operation: "put",
      scope,
      name: "x",
      version: 1,
      size: 2,
      sha256: sha256Hex("hi"),
      mimeType: "text/plain",
    });
    expect("data" in effect).toBe(false);
  });

  it("rejects unknown operations when binding", () => {
    expect(() =>
      bindArtifacts(serviceReturning(honest), scope, { allow: ["drop" as never] }),
    ).toThrow(/allow/);
  });
});
