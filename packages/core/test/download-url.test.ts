import { describe, expect, it } from "vitest";
import {
  type ArtifactService,
  checkDownloadUrlReply,
  defineCapabilities,
  hasDownloadUrls,
  validateDownloadUrlRequest,
} from "../src/index.js";

const base = {
  durability: "volatile" as const,
  maxPageLimit: 10,
  legacyListLimit: 10,
  quotas: { appliesTo: "global" as const, bounds: {} },
};
const withUrls = defineCapabilities({ ...base, downloadUrls: { maxExpiresInSeconds: 3600 } });
const without = defineCapabilities(base);
const scope = { kind: "app", app: "links" } as const;

/** Only what hasDownloadUrls reads: the method and the capabilities. */
function serviceWith(capabilities: ReturnType<typeof defineCapabilities>, method: boolean) {
  return {
    capabilities: () => capabilities,
    ...(method ? { createDownloadUrl: async () => ({}) } : {}),
  } as unknown as ArtifactService;
}

describe("createDownloadUrl, the optional capability", () => {
  it("is present only when implemented and declared", () => {
    expect(hasDownloadUrls(serviceWith(withUrls, true))).toBe(true);
    expect(hasDownloadUrls(serviceWith(without, true))).toBe(false);
    expect(hasDownloadUrls(serviceWith(withUrls, false))).toBe(false);
    expect(withUrls.downloadUrls).toEqual({ maxExpiresInSeconds: 3600 });
    expect(Object.isFrozen(withUrls.downloadUrls)).toBe(true);
    expect(without.downloadUrls).toBeUndefined();
  });

  it("refuses a capability without a positive bound", () => {
    for (const maxExpiresInSeconds of [0, -1, 1.5, Number.NaN]) {
      expect(() => defineCapabilities({ ...base, downloadUrls: { maxExpiresInSeconds } })).toThrow(
        expect.objectContaining({
          code: "invalid_argument",
          detail: expect.objectContaining({ field: "downloadUrls.maxExpiresInSeconds" }),
        }),
      );
    }
  });

  it("validates the request against the declared bound", () => {
    const signal = new AbortController().signal;
    expect(
      validateDownloadUrlRequest(withUrls, scope, "a/b.txt", {
        version: 2,
        expiresInSeconds: 3600,
        signal,
      }),
    ).toEqual({
      scope,
      name: "a/b.txt",
      version: 2,
      expiresInSeconds: 3600,
      options: { signal },
    });
    const field = (options: unknown, name: unknown = "a.txt") => {
      try {
        validateDownloadUrlRequest(withUrls, scope, name, options);
      } catch (error) {
        return (error as { code: string; detail: { field?: string } }).detail.field;
      }
      return "accepted";
    };
    expect(field({ version: 1, expiresInSeconds: 3601 })).toBe("expiresInSeconds");
    expect(field({ version: 1, expiresInSeconds: 0 })).toBe("expiresInSeconds");
    expect(field({ version: "latest", expiresInSeconds: 60 })).toBe("version");
    expect(field({ version: 0, expiresInSeconds: 60 })).toBe("version");
    expect(field({ version: 1, expiresInSeconds: 60, range: {} })).toBe("options.range");
    expect(field({ version: 1, expiresInSeconds: 60 }, "../x")).toBe("name");
    expect(() =>
      validateDownloadUrlRequest(without, scope, "a.txt", { version: 1, expiresInSeconds: 1 }),
    ).toThrow(expect.objectContaining({ code: "unsupported_transfer" }));
  });

  it("checks a reply before it is handed on", () => {
    const now = 1_000_000;
    const asked = { version: 3, expiresInSeconds: 60 };
    const good = { url: "https://bucket.example/o?sig=1", version: 3, expiresAt: now + 60_000 };
    expect(checkDownloadUrlReply(good, asked, now)).toEqual(good);
    const bad = [
      { ...good, url: "javascript:alert(1)" },
      { ...good, url: "/relative" },
      { ...good, version: 2 },
      { ...good, expiresAt: now + 3_600_000 },
      { ...good, expiresAt: "soon" },
      undefined,
    ];
    for (const reply of bad) {
      expect(() => checkDownloadUrlReply(reply, asked, now)).toThrow(
        expect.objectContaining({ code: "invalid_service_reply" }),
      );
    }
  });
});
