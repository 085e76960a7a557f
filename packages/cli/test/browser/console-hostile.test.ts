import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchForScript } from "../support/browser.js";
import {
  BROWSER_TEST_TIMEOUT_MS,
  type ConsoleFixture,
  chooseName,
  openScope,
  startConsole,
} from "./fixture.js";

// Hostile content stays inert in Chromium: ids, names, metadata and Markdown that carry
// HTML or script render as text, RTL overrides are shown, 1,024-byte names fit, and HTML
// and SVG artifacts run nothing, framed or opened on their own.

const IMG = "<img src=x onerror=alert(1)>";
const SCRIPT = "<script>alert(2)</script>";
const RTL = "invoice\u202Etxt.exe";
const LONG = `long-${"n".repeat(1019)}`;
const scope: Scope = { kind: "session", app: IMG, user: SCRIPT, session: RTL };
const encode = (text: string) => new TextEncoder().encode(text);
const RAN = "<script>document.body.dataset.ran = 'yes'; alert(3)</script><p>framed</p>";

let service: MemoryArtifactService;
let fixture: ConsoleFixture;
let seen: string[];

beforeAll(async () => {
  service = new MemoryArtifactService();
  await service.put(scope, IMG, encode("a"), { metadata: { note: IMG, rtl: RTL, html: SCRIPT } });
  await service.put(scope, SCRIPT, encode("b"));
  await service.put(scope, RTL, encode("c"));
  await service.put(scope, LONG, encode("d"));
  await service.put(
    scope,
    "evil.md",
    encode(
      `# Title\n\n${SCRIPT}\n\n${IMG}\n\n[click](javascript:alert(4))\n\n<iframe src="/"></iframe>\n`,
    ),
    { mimeType: "text/markdown" },
  );
  await service.put(scope, "page.html", encode(RAN), { mimeType: "text/html" });
  await service.put(
    scope,
    "image.svg",
    encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(5)</script></svg>'),
    { mimeType: "image/svg+xml" },
  );
  expect(new TextEncoder().encode(LONG).byteLength).toBe(1024);
  fixture = await startConsole(service);
  seen = watchForScript(fixture.page);
  await openScope(fixture.page, scope);
});
afterAll(async () => {
  await fixture?.stop();
  await service?.close();
});

describe("hostile names, ids and metadata", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("render as text, with RTL overrides made visible", async () => {
    const { page } = fixture;
    const names = page.getByRole("listbox", { name: "names" });
    await names.getByRole("option", { name: IMG, exact: true }).waitFor();
    await names.getByRole("option", { name: SCRIPT, exact: true }).waitFor();
    await names.getByRole("option", { name: "invoice<U+202E>txt.exe", exact: true }).waitFor();
    await names.getByRole("option", { name: LONG, exact: true }).waitFor();
    await page.getByText(`Artifacts of ${IMG} / ${SCRIPT} / invoice<U+202E>txt.exe`).waitFor();

    await chooseName(page, IMG);
    const metadata = page.locator(".metadata pre");
    await metadata.waitFor();
    const text = (await metadata.textContent()) ?? "";
    expect(text).toContain(IMG);
    expect(text).toContain("invoice<U+202E>txt.exe");
    await chooseName(page, LONG);
    await page.getByRole("heading", { name: LONG }).waitFor();

    expect(await page.locator("img[src=x]").count()).toBe(0);
    expect(await page.locator("script:not([src])").count()).toBe(0);
    expect(seen).toEqual([]);
  });

  it("Markdown is sanitized: no script, no handler, no javascript: link, no frame", async () => {
    const { page } = fixture;
    await chooseName(page, "evil.md");
    const article = page.locator("article.markdown");
    await article.locator("h1", { hasText: "Title" }).waitFor();
    expect(await article.locator("script, iframe, [onerror]").count()).toBe(0);
    expect(await article.locator("a[href^='javascript']").count()).toBe(0);
    expect(seen).toEqual([]);
  });

  it("HTML and SVG run nothing: a frame without scripts, a sandboxed answer on their own", async () => {
    const { page, api, context } = fixture;
    await chooseName(page, "page.html");
    const frame = page.locator("iframe.preview-frame");
    expect(await frame.getAttribute("sandbox")).toBe("");
    const inner = page.frameLocator("iframe.preview-frame");
    await inner.getByText("framed").waitFor();
    expect(await inner.locator("body").getAttribute("data-ran")).toBeNull();
    await chooseName(page, "image.svg");
    expect(await page.locator("iframe.preview-frame").getAttribute("sandbox")).toBe("");

    // Opened directly, as a link would be: the server's sandbox policy still applies.
    const tab = await context.newPage();
    const tabSeen = watchForScript(tab);
    const src = (await frame.getAttribute("src")) ?? "";
    await chooseName(page, "page.html");
    const htmlSrc = (await page.locator("iframe.preview-frame").getAttribute("src")) ?? "";
    await tab.goto(`${api.url}${htmlSrc}`);
    await tab.getByText("framed").waitFor();
    expect(await tab.locator("body").getAttribute("data-ran")).toBeNull();
    expect(tabSeen).toEqual([]);
    expect(src).toContain("disposition=inline");
    await tab.close();
    expect(seen).toEqual([]);
  });
});
