import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signLink } from "../../src/api/links.js";
import {
  BROWSER_TEST_TIMEOUT_MS,
  type ConsoleFixture,
  chooseName,
  LINK_SECRET,
  openScope,
  png,
  startConsole,
} from "./fixture.js";

// Looking at artifacts in Chromium: previews of an image, a Markdown report and a CSV, a
// diff of two versions, a 50 MiB upload with its progress bar, a confirmed deletion, and a
// signed link that works until it is altered or expired.

const scope: Scope = { kind: "session", app: "reports", user: "ana", session: "run-7" };
const encode = (text: string) => new TextEncoder().encode(text);
let service: MemoryArtifactService;
let fixture: ConsoleFixture;
let files: string;

beforeAll(async () => {
  service = new MemoryArtifactService({ maxArtifactBytes: 64 * 1024 * 1024 });
  await service.put(scope, "chart.png", png(40, 20, [200, 30, 30]), { mimeType: "image/png" });
  await service.put(
    scope,
    "report.md",
    encode("# Quarterly report\n\n- **revenue** up\n- costs down\n"),
    {
      mimeType: "text/markdown",
    },
  );
  await service.put(scope, "table.csv", encode("city,temp\nOslo,3\nLima,19\n"), {
    mimeType: "text/csv",
  });
  await service.put(scope, "notes.txt", encode("alpha\nbeta\ngamma\n"), { mimeType: "text/plain" });
  await service.put(scope, "notes.txt", encode("alpha\nBETA\ngamma\ndelta\n"), {
    mimeType: "text/plain",
  });
  await service.put(scope, "old.txt", encode("one"), { mimeType: "text/plain" });
  await service.put(scope, "old.txt", encode("two"), { mimeType: "text/plain" });
  files = await mkdtemp(join(tmpdir(), "artifact-kit-console-"));
  fixture = await startConsole(service);
  await openScope(fixture.page, scope);
});
afterAll(async () => {
  await fixture?.stop();
  await service?.close();
  await rm(files, { recursive: true, force: true });
});

describe("previews", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("shows an image as an image", async () => {
    const { page } = fixture;
    await chooseName(page, "chart.png");
    const image = page.locator("img.preview-image");
    await image.waitFor();
    await page.waitForFunction("document.querySelector('img.preview-image')?.complete");
    expect(await image.evaluate<number, { naturalWidth: number }>((img) => img.naturalWidth)).toBe(
      40,
    );
  });

  it("renders Markdown and shows a CSV as a table", async () => {
    const { page } = fixture;
    await chooseName(page, "report.md");
    await page.locator("article.markdown h1", { hasText: "Quarterly report" }).waitFor();
    expect(await page.locator("article.markdown strong").textContent()).toBe("revenue");
    await chooseName(page, "table.csv");
    await page.locator("table.csv td", { hasText: "Lima" }).waitFor();
    expect(await page.locator("table.csv th").allTextContents()).toEqual(["city", "temp"]);
    expect(await page.locator("table.csv tbody tr").count()).toBe(2);
  });

  it("diffs two versions of a text", async () => {
    const { page } = fixture;
    await chooseName(page, "notes.txt");
    await page.getByLabel("Compare with").selectOption("1");
    await page.locator("[data-diff=added]", { hasText: "BETA" }).waitFor();
    expect(await page.locator("[data-diff=removed]").allTextContents()).toEqual(["- beta\n"]);
    expect(await page.locator("[data-diff=added]").allTextContents()).toEqual([
      "+ BETA\n",
      "+ delta\n",
    ]);
  });
});

describe("upload, link and delete", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("uploads 50 MiB with a progress bar, streamed into the store", async () => {
    const { page } = fixture;
    const size = 50 * 1024 * 1024;
    const path = join(files, "big.bin");
    await writeFile(path, Buffer.alloc(size, 7));
    // Records every progress text the form shows, from the first (0 B) on.
    await page.evaluate(`(() => {
      window.progressSeen = [];
      new MutationObserver(() => {
        const text = document.querySelector(".progress span")?.textContent;
        if (text) window.progressSeen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await page.getByLabel("File", { exact: true }).setInputFiles(path);
    await page.getByLabel(/^Name/).fill("uploads/big.bin");
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Uploaded uploads/big.bin as version 1" })
      .waitFor();
    const seen = await page.evaluate<string[]>("window.progressSeen");
    expect(seen[0]).toBe("0 B of 50.0 MiB");
    const meta = await service.head(scope, "uploads/big.bin");
    expect(meta.size).toBe(size);
  });

  it("copies a signed link that downloads until altered or expired", async () => {
    const { page, api } = fixture;
    await chooseName(page, "old.txt");
    await page.getByRole("button", { name: /^Signed link/ }).click();
    const link = await page.getByLabel("Signed link").inputValue();
    expect(link.startsWith(`${api.url}/links/`)).toBe(true);
    // Another browser with no session: the link alone is the authority.
    const stranger = await fixture.newContext();
    const response = await stranger.request.get(link);
    expect(response.status()).toBe(200);
    expect(await response.text()).toBe("two");
    const altered = link.replace(/.$/, link.endsWith("A") ? "B" : "A");
    expect((await stranger.request.get(altered)).status()).toBe(403);
    const expired = signLink(LINK_SECRET, { scope, name: "old.txt", version: 2, expiresAt: 1 });
    const late = await stranger.request.get(`${api.url}/links/${expired}`);
    expect(late.status()).toBe(403);
    expect(await late.text()).toContain("link_expired");
    await stranger.close();
  });

  it("deletes after a confirmation that names what goes", async () => {
    const { page } = fixture;
    await chooseName(page, "old.txt");
    await page.getByRole("button", { name: "Delete latest" }).click();
    const dialog = page.getByRole("dialog", { name: "confirm deletion" });
    expect(await dialog.locator(".what").textContent()).toBe("the latest version (2) of old.txt");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await service.listVersions(scope, "old.txt")).items).toHaveLength(2);

    await page.getByRole("button", { name: "Delete all" }).click();
    expect(await dialog.locator(".what").textContent()).toBe("all 2 listed versions of old.txt");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page
      .getByRole("listbox", { name: "names" })
      .getByRole("option", { name: "old.txt" })
      .waitFor({ state: "detached" });
    expect((await service.listNames(scope)).items).not.toContain("old.txt");
  });
});
