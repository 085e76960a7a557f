import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUrlBackend, type UrlBackend, withDownloadUrls } from "../support/download-urls.js";
import {
  BROWSER_TEST_TIMEOUT_MS,
  type ConsoleFixture,
  chooseName,
  openScope,
  startConsole,
} from "./fixture.js";

// The console's "Signed link" over a store that makes download URLs of its own: the link
// shown is the store's URL (not one of serve's), and it downloads the exact version from
// the backend, without a session, until it is altered.

const scope: Scope = { kind: "app", app: "links" };
let memory: MemoryArtifactService;
let backend: UrlBackend;
let fixture: ConsoleFixture;

beforeAll(async () => {
  memory = new MemoryArtifactService();
  await memory.put(scope, "plan.txt", new TextEncoder().encode("draft"));
  await memory.put(scope, "plan.txt", new TextEncoder().encode("final plan"));
  backend = await startUrlBackend(memory);
  fixture = await startConsole(withDownloadUrls(memory, backend));
  await openScope(fixture.page, scope);
});
afterAll(async () => {
  await fixture?.stop();
  await backend?.close();
  await memory?.close();
});

describe("signed link from the store", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("shows the store's own URL, which downloads the version until altered", async () => {
    const { page } = fixture;
    await chooseName(page, "plan.txt");
    await page.getByRole("button", { name: /^Signed link/ }).click();
    const field = page.getByLabel("Signed link");
    await field.waitFor();
    const link = await field.inputValue();
    expect(link.startsWith(`${backend.url}/links/`)).toBe(true);
    // The exact latest version, with the request's deadline handed on.
    expect(backend.asked).toHaveLength(1);
    expect(backend.asked[0]).toMatchObject({ version: 2, expiresInSeconds: 3600 });
    expect(backend.asked[0]?.timeoutMs).toBeGreaterThan(0);
    const stranger = await fixture.newContext();
    const response = await stranger.request.get(link);
    expect(response.status()).toBe(200);
    expect(await response.text()).toBe("final plan");
    const altered = link.replace(/.$/, link.endsWith("A") ? "B" : "A");
    expect((await stranger.request.get(altered)).status()).toBe(403);
    await stranger.close();
  });
});
