import { isArtifactError } from "@artifact-kit/core";
import {
  type BaseArtifactService,
  FileArtifactService,
  InMemoryArtifactService,
} from "@google/adk";
import { describe, expect, it } from "vitest";
import { codeOf } from "./support/codes.js";
import { type BridgedFs, bridgedFs, tempRoot } from "./support/subjects.js";

// Where the bridge over artifact-kit and ADK's own services differ. Each README row is one test.

const KEY = { appName: "app", userId: "ada", sessionId: "s1" };
const text = (value: string) => ({ text: value });

async function withBridge(test: (bridge: BridgedFs) => Promise<void>): Promise<void> {
  const bridge = await bridgedFs();
  try {
    await test(bridge);
  } finally {
    await bridge.service.close();
  }
}

describe("concurrent saves of one filename", () => {
  const SAVES = 12;
  /** SAVES saves started at once, alternating between two services (or on one). */
  const saveAll = (first: BaseArtifactService, second = first) =>
    Promise.all(
      Array.from({ length: SAVES }, (_, i) =>
        (i % 2 === 0 ? first : second).saveArtifact({
          ...KEY,
          filename: "log.txt",
          artifact: text(`save ${i}`),
        }),
      ),
    );

  it("bridge: every save gets its own version, also from two services on one root", async () => {
    await withBridge(async (one) => {
      const two = await bridgedFs(one.root); // a second process would open the root the same way
      try {
        const versions = await saveAll(one.adk, two.adk);
        expect([...versions].sort((a, b) => a - b)).toEqual([...Array(SAVES).keys()]);
        for (const [i, version] of versions.entries()) {
          const loaded = await one.adk.loadArtifact({ ...KEY, filename: "log.txt", version });
          expect(loaded).toEqual(text(`save ${i}`));
        }
      } finally {
        await two.service.close();
      }
    });
  });

  it("ADK FileArtifactService: saves racing on one filename get the same version, and all but one are lost", async () => {
    const adk = new FileArtifactService(await tempRoot());
    const versions = await saveAll(adk);
    expect(new Set(versions).size).toBeLessThan(SAVES);
    expect((await adk.listVersions({ ...KEY, filename: "log.txt" })).length).toBeLessThan(SAVES);
  });

  it("ADK InMemoryArtifactService: distinct in one process (its save never yields), but never shared", async () => {
    const adk = new InMemoryArtifactService();
    expect(new Set(await saveAll(adk)).size).toBe(SAVES);
    expect(
      await new InMemoryArtifactService().listVersions({ ...KEY, filename: "log.txt" }),
    ).toEqual([]);
  });
});

describe("saving again after a delete", () => {
  const saveTwiceDeleteAndSave = async (adk: BaseArtifactService) => {
    await adk.saveArtifact({ ...KEY, filename: "a", artifact: text("old 0") });
    await adk.saveArtifact({ ...KEY, filename: "a", artifact: text("old 1") });
    await adk.deleteArtifact({ ...KEY, filename: "a" });
    return adk.saveArtifact({ ...KEY, filename: "a", artifact: text("new") });
  };

  it("bridge: the next save continues above every version ever given out", async () => {
    await withBridge(async ({ adk }) => {
      expect(await saveTwiceDeleteAndSave(adk)).toBe(2);
      expect(await adk.loadArtifact({ ...KEY, filename: "a", version: 0 })).toBeUndefined();
    });
  });

  it("ADK InMemoryArtifactService: version 0 is given out again and now names other content", async () => {
    const adk = new InMemoryArtifactService();
    expect(await saveTwiceDeleteAndSave(adk)).toBe(0);
    expect(await adk.loadArtifact({ ...KEY, filename: "a", version: 0 })).toEqual(text("new"));
  });
});

describe("durability", () => {
  it("bridge over fs: a new process on the same root sees the artifacts; a new InMemory does not", async () => {
    const first = await bridgedFs();
    await first.adk.saveArtifact({ ...KEY, filename: "a", artifact: text("kept") });
    await first.service.close();
    await withBridge(async () => {
      const again = await bridgedFs(first.root);
      try {
        expect(await again.adk.loadArtifact({ ...KEY, filename: "a" })).toEqual(text("kept"));
      } finally {
        await again.service.close();
      }
    });
    const memory = new InMemoryArtifactService();
    await memory.saveArtifact({ ...KEY, filename: "a", artifact: text("kept") });
    expect(
      await new InMemoryArtifactService().loadArtifact({ ...KEY, filename: "a" }),
    ).toBeUndefined();
  });
});

describe("listArtifactKeys order", () => {
  // U+FF21 sorts before U+1F600 by code point (UTF-8 bytes), after it by UTF-16 code unit.
  const names = ["\u{1F600}.txt", "\uFF21.txt"];

  it("bridge: UTF-8 byte order; ADK InMemoryArtifactService: UTF-16 order", async () => {
    const memory = new InMemoryArtifactService();
    await withBridge(async ({ adk }) => {
      for (const filename of names) {
        await adk.saveArtifact({ ...KEY, filename, artifact: text(filename) });
        await memory.saveArtifact({ ...KEY, filename, artifact: text(filename) });
      }
      expect(await adk.listArtifactKeys(KEY)).toEqual(["\uFF21.txt", "\u{1F600}.txt"]);
    });
    expect(await memory.listArtifactKeys(KEY)).toEqual(["\u{1F600}.txt", "\uFF21.txt"]);
  });
});

describe("what a version reports", () => {
  it("bridge: the MIME type of every version; ADK InMemoryArtifactService: only of file references", async () => {
    const memory = new InMemoryArtifactService();
    const part = { inlineData: { data: "AA==", mimeType: "image/png" } };
    await memory.saveArtifact({ ...KEY, filename: "p", artifact: part });
    expect((await memory.getArtifactVersion({ ...KEY, filename: "p" }))?.mimeType).toBeUndefined();
    await withBridge(async ({ adk }) => {
      await adk.saveArtifact({ ...KEY, filename: "p", artifact: part });
      await adk.saveArtifact({ ...KEY, filename: "t", artifact: text("x") });
      expect((await adk.getArtifactVersion({ ...KEY, filename: "p" }))?.mimeType).toBe("image/png");
      expect((await adk.getArtifactVersion({ ...KEY, filename: "t" }))?.mimeType).toBe(
        "text/plain",
      );
    });
  });
});

describe("what a Part keeps", () => {
  const part = {
    inlineData: { data: "AQI=", mimeType: "image/png" },
    thought: true,
    partMetadata: { origin: "camera" },
  };

  it("bridge: only the content fields; ADK InMemoryArtifactService: the Part object as given", async () => {
    const memory = new InMemoryArtifactService();
    await memory.saveArtifact({ ...KEY, filename: "p", artifact: part });
    expect(await memory.loadArtifact({ ...KEY, filename: "p" })).toBe(part);
    await withBridge(async ({ adk }) => {
      await adk.saveArtifact({ ...KEY, filename: "p", artifact: part });
      expect(await adk.loadArtifact({ ...KEY, filename: "p" })).toEqual({
        inlineData: part.inlineData,
      });
    });
  });

  it("bridge: inline bytes without a MIME type come back as application/octet-stream", async () => {
    const bare = { inlineData: { data: "AQI=" } };
    const memory = new InMemoryArtifactService();
    await memory.saveArtifact({ ...KEY, filename: "p", artifact: bare });
    expect(await memory.loadArtifact({ ...KEY, filename: "p" })).toEqual(bare);
    await withBridge(async ({ adk }) => {
      await adk.saveArtifact({ ...KEY, filename: "p", artifact: bare });
      expect(await adk.loadArtifact({ ...KEY, filename: "p" })).toEqual({
        inlineData: { data: "AQI=", mimeType: "application/octet-stream" },
      });
    });
  });

  it("bridge: an empty text Part is stored; ADK InMemoryArtifactService rejects it", async () => {
    await expect(
      new InMemoryArtifactService().saveArtifact({ ...KEY, filename: "e", artifact: text("") }),
    ).rejects.toThrow("must have either inlineData or text");
    await withBridge(async ({ adk }) => {
      expect(await adk.saveArtifact({ ...KEY, filename: "e", artifact: text("") })).toBe(0);
      expect(await adk.loadArtifact({ ...KEY, filename: "e" })).toEqual(text(""));
    });
  });
});

describe("validation", () => {
  const inputs = [
    { label: "a `..` segment", request: { ...KEY, filename: "a/../b", artifact: text("x") } },
    { label: "an empty segment", request: { ...KEY, filename: "a//b", artifact: text("x") } },
    {
      label: "customMetadata that is not JSON",
      request: { ...KEY, filename: "a", artifact: text("x"), customMetadata: { at: new Date(0) } },
    },
  ];

  it.each(inputs)(
    "bridge: $label is invalid_argument; ADK InMemoryArtifactService stores it",
    async ({ request }) => {
      expect(await new InMemoryArtifactService().saveArtifact(request)).toBe(0);
      await withBridge(async ({ adk }) => {
        expect(await codeOf(adk.saveArtifact(request))).toBe("invalid_argument");
        expect(await adk.listArtifactKeys(KEY)).toEqual([]);
      });
    },
  );

  it("bridge: a negative version is invalid_argument; ADK InMemoryArtifactService answers undefined", async () => {
    const memory = new InMemoryArtifactService();
    await memory.saveArtifact({ ...KEY, filename: "a", artifact: text("x") });
    expect(await memory.loadArtifact({ ...KEY, filename: "a", version: -1 })).toBeUndefined();
    await withBridge(async ({ adk }) => {
      await adk.saveArtifact({ ...KEY, filename: "a", artifact: text("x") });
      expect(await codeOf(adk.loadArtifact({ ...KEY, filename: "a", version: -1 }))).toBe(
        "invalid_argument",
      );
    });
  });

  it("bridge: a Part with no content is an ArtifactError with ADK's wording; ADK InMemoryArtifactService: a bare Error", async () => {
    const empty = { ...KEY, filename: "a", artifact: {} };
    const error = await new InMemoryArtifactService().saveArtifact(empty).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isArtifactError(error)).toBe(false);
    await withBridge(async ({ adk }) => {
      const ours = await adk.saveArtifact(empty).catch((e: unknown) => e);
      expect(isArtifactError(ours, "invalid_argument")).toBe(true);
      expect((ours as Error).message).toContain((error as Error).message);
    });
  });
});
