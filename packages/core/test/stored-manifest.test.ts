import { describe, expect, it } from "vitest";
import {
  metaOfManifest,
  parseStoredManifest,
  type StoredManifest,
  storedManifestJson,
} from "../src/adapter/index.js";
import { sha256Hex } from "../src/index.js";

const manifest: StoredManifest = {
  scope: { kind: "app", app: "a" },
  name: "n",
  version: 3,
  mimeType: "text/plain",
  size: 2,
  sha256: sha256Hex("hi"),
  createdAt: 1,
  metadata: { k: [1, "x"] },
  idempotencyKey: "key-1",
  requestId: "r",
  blocks: [sha256Hex("hi")],
};
const FORMAT = "test@1";
const json = storedManifestJson(manifest, FORMAT);
const expected = { scope: manifest.scope, name: "n", version: 3 };

describe("stored manifests", () => {
  it("round-trip, and the public record drops what only the adapter needs", () => {
    expect(parseStoredManifest(json, FORMAT, expected)).toEqual(manifest);
    const meta = metaOfManifest(parseStoredManifest(json, FORMAT, expected));
    expect(meta).not.toHaveProperty("requestId");
    expect(meta).not.toHaveProperty("blocks");
    expect(meta.idempotencyKey).toBe("key-1");
  });

  it.each([
    ["another scope", json, { ...expected, scope: { kind: "app", app: "b" } as const }],
    ["another name", json, { ...expected, name: "m" }],
    ["another version", json, { ...expected, version: 4 }],
    ["another format", storedManifestJson(manifest, "other@1"), expected],
    ["not JSON", "{", expected],
    ["a bad sha256", json.replace(manifest.sha256, "x"), expected],
    ["a bad block list", json.replace(/"blocks":\[[^\]]*\]/, '"blocks":[]'), expected],
    [
      "a name with ..",
      json.replace('"name":"n"', '"name":"a/../b"'),
      { ...expected, name: undefined },
    ],
  ])("naming %s is corrupt_artifact", (_, text, expectation) => {
    const { name, ...rest } = expectation;
    expect(() =>
      parseStoredManifest(text, FORMAT, name === undefined ? rest : { ...rest, name }),
    ).toThrow(expect.objectContaining({ code: "corrupt_artifact" }));
  });
});
