import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import type { Page, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BROWSER_TEST_TIMEOUT_MS,
  type ConsoleFixture,
  chooseName,
  openScope,
  startConsole,
} from "./fixture.js";
import { pdf, wav, webm } from "./media-fixtures.js";

// Previews of a PDF (the browser's own viewer), audio and video (media elements that read
// the content route with byte ranges), in Chromium, from media made by the test itself.

const scope: Scope = { kind: "session", app: "media", user: "ana", session: "run-1" };
/** Chromium's built-in PDF viewer, a component extension with this fixed id. */
const PDF_VIEWER = "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/";
const summary = pdf("Quarterly summary");
let service: MemoryArtifactService;
let fixture: ConsoleFixture;

beforeAll(async () => {
  service = new MemoryArtifactService();
  await service.put(scope, "summary.pdf", summary, { mimeType: "application/pdf" });
  await service.put(scope, "silence.wav", wav(0.5), { mimeType: "audio/wav" });
  fixture = await startConsole(service);
  const clip = await webm(fixture.browser, 64, 48, 6);
  await service.put(scope, "clip.webm", clip, { mimeType: "video/webm" });
  await openScope(fixture.page, scope);
});
afterAll(async () => {
  await fixture?.stop();
  await service?.close();
});

/** The answers of the content route of `name` while `work` runs. */
async function contentResponses(page: Page, name: string, work: () => Promise<void>) {
  const seen: Response[] = [];
  const path = `/names/${encodeURIComponent(name)}/versions/1/content`;
  const onResponse = (response: Response) => {
    if (new URL(response.url()).pathname.endsWith(path)) seen.push(response);
  };
  page.on("response", onResponse);
  try {
    await work();
  } finally {
    page.off("response", onResponse);
  }
  return seen;
}

/** The parts of a media element the tests read (their types have no DOM). */
interface MediaElement {
  readyState: number;
  duration: number;
  videoWidth: number;
  videoHeight: number;
  addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
}

/** HTMLMediaElement.HAVE_METADATA */
const HAVE_METADATA = 1;

/** Waits for the media element's `loadedmetadata` (or finds it has fired already). */
async function loadedMetadata(page: Page, selector: string): Promise<void> {
  await page.locator(selector).evaluate<void, number, MediaElement>((media, haveMetadata) => {
    if (media.readyState >= haveMetadata) return undefined;
    return new Promise<void>((resolve) => {
      media.addEventListener("loadedmetadata", () => resolve(), { once: true });
    });
  }, HAVE_METADATA);
}

/** The media element read the bytes in ranges: at least one 206 with its Content-Range. */
async function expectRangeRead(responses: Response[], size: number): Promise<void> {
  const partial = responses.filter((response) => response.status() === 206);
  expect(partial.length).toBeGreaterThan(0);
  for (const response of partial) {
    expect(await response.request().headerValue("range")).toMatch(/^bytes=\d+-\d*$/);
    expect((await response.allHeaders())["content-range"]).toMatch(
      new RegExp(`^bytes \\d+-\\d+/${size}$`),
    );
  }
}

describe("PDF, audio and video previews", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("opens a PDF in the browser's viewer, served as a PDF without this origin's script", async () => {
    const { page } = fixture;
    const viewer = page.waitForEvent("framenavigated", (frame) =>
      frame.url().startsWith(PDF_VIEWER),
    );
    const responses = await contentResponses(page, "summary.pdf", async () => {
      await chooseName(page, "summary.pdf");
      await viewer;
    });
    const frame = page.locator("iframe.preview-frame");
    expect(await frame.getAttribute("title")).toBe("PDF preview");
    expect(await frame.getAttribute("src")).toMatch(
      /\/names\/summary\.pdf\/versions\/1\/content\?disposition=inline$/,
    );
    const served = responses.find((response) => response.status() === 200);
    const headers = (await served?.allHeaders()) ?? {};
    expect(headers["content-type"]).toBe("application/pdf");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["content-disposition"]).toMatch(/^inline; filename="summary\.pdf"/);
    expect(headers["content-security-policy"]).toContain("default-src 'none'");
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'self'");
    // The viewer takes the body over, so the bytes are read again through the session.
    const again = await page.request.get(served?.url() ?? "");
    expect(Buffer.from(await again.body())).toEqual(Buffer.from(summary));
  });

  it("plays audio from the content route, its duration read from the WAV", async () => {
    const { page } = fixture;
    const responses = await contentResponses(page, "silence.wav", async () => {
      await chooseName(page, "silence.wav");
      await loadedMetadata(page, "audio.preview-audio");
    });
    const duration = await page
      .locator("audio.preview-audio")
      .evaluate<number, MediaElement>((audio) => audio.duration);
    expect(duration).toBeCloseTo(0.5, 3);
    await expectRangeRead(responses, (await service.head(scope, "silence.wav")).size);
  });

  it("shows a video, its frame size read from the WebM", async () => {
    const { page } = fixture;
    const responses = await contentResponses(page, "clip.webm", async () => {
      await chooseName(page, "clip.webm");
      await loadedMetadata(page, "video.preview-video");
    });
    const size = await page
      .locator("video.preview-video")
      .evaluate<{ videoWidth: number; videoHeight: number }, MediaElement>(
        ({ videoWidth, videoHeight }) => ({ videoWidth, videoHeight }),
      );
    expect(size).toEqual({ videoWidth: 64, videoHeight: 48 });
    await expectRangeRead(responses, (await service.head(scope, "clip.webm")).size);
  });
});
