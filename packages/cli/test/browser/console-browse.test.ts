import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn } from "../support/browser.js";
import {
  BROWSER_TEST_TIMEOUT_MS,
  type ConsoleFixture,
  chooseName,
  chooseOption,
  openScope,
  startConsole,
  TOKEN,
} from "./fixture.js";

// The console in Chromium over a memory store: signing in and out, finding one app among
// 1,000, paging through 10,000 names, and doing it all from the keyboard.

const many: Scope = { kind: "session", app: "app-0500", user: "ana", session: "run-1" };
const bytes = new TextEncoder().encode("x");
let service: MemoryArtifactService;
let fixture: ConsoleFixture;

beforeAll(async () => {
  service = new MemoryArtifactService();
  for (let i = 0; i < 1000; i++) {
    await service.put({ kind: "app", app: `app-${String(i).padStart(4, "0")}` }, "a.txt", bytes);
  }
  for (let i = 0; i < 10_000; i++) {
    await service.put(many, `out/n-${String(i).padStart(5, "0")}.txt`, bytes);
  }
  fixture = await startConsole(service);
});
afterAll(async () => {
  await fixture?.stop();
  await service?.close();
});

describe("console sign-in", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("keeps the token out of URLs and page storage; the session cookie is HttpOnly and Strict", async () => {
    const { api } = fixture;
    const context = await fixture.newContext();
    const page = await context.newPage();
    const urls: string[] = [];
    page.on("request", (request) => urls.push(request.url()));
    await signIn(page, api.url, TOKEN);
    expect(urls.some((url) => url.includes(TOKEN))).toBe(false);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({
      name: "artifact_kit_session",
      httpOnly: true,
      sameSite: "Strict",
      expires: -1,
    });
    expect(cookie?.value).not.toContain(TOKEN);
    const stored = await page.evaluate<string>(
      "JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie",
    );
    expect(stored).not.toContain(TOKEN);
    expect(stored).not.toContain("artifact_kit_session");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API token").waitFor();
    const after = await page.evaluate(async () => (await fetch("/v1/scopes")).status);
    expect(after).toBe(401);
    await page.reload();
    await page.getByLabel("API token").waitFor();
    await context.close();
  });

  it("refuses a wrong token with a message and no session", async () => {
    const context = await fixture.newContext();
    const page = await context.newPage();
    await page.goto(`${fixture.api.url}/console/`);
    await page.getByLabel("API token").fill(`${TOKEN}-wrong`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      "not this server's token",
    );
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });
});

describe("console browsing", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("finds one app among 1,000 and pages through 10,000 names", async () => {
    const { page } = fixture;
    await openScope(page, many);
    await chooseOption(page, "names", "out/n-09999.txt");
    await page
      .getByRole("region", { name: "versions" })
      .getByRole("heading", { name: "out/n-09999.txt" })
      .waitFor();
    // Virtualized: ten thousand names loaded, a screenful of rows in the page.
    await page.locator(".list-status", { hasText: "10000 shown" }).waitFor();
    expect(
      await page.getByRole("listbox", { name: "names" }).getByRole("option").count(),
    ).toBeLessThan(100);
  });

  it("filters names by prefix", async () => {
    const { page } = fixture;
    await page.getByLabel("Prefix").fill("out/n-0999");
    await page.locator(".list-status", { hasText: /^10 shown$/ }).waitFor();
    await chooseName(page, "out/n-09990.txt");
    await page.getByLabel("Prefix").fill("");
  });

  it("works from the keyboard alone", async () => {
    const context = await fixture.newContext();
    const page = await context.newPage();
    await page.goto(`${fixture.api.url}/console/`);
    await page.getByLabel("API token").waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.id")).toBe("token");
    await page.keyboard.type(TOKEN);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const focusOn = async (label: string) => {
      for (let step = 0; step < 20; step++) {
        if (
          (await page.evaluate<string>('document.activeElement?.getAttribute("aria-label")')) ===
          label
        )
          return;
        await page.keyboard.press("Tab");
      }
      throw new Error(`Tab never reached ${label}`);
    };
    // Enter chooses the active row of a list that has loaded: on a slow machine the keys can
    // come before the rows, and an Enter on an empty list chooses nothing (it is not queued).
    const rowsShown = (list: string, first: string) =>
      page
        .getByRole("listbox", { name: list })
        .getByRole("option", { name: first, exact: true })
        .waitFor();
    await rowsShown("apps", "app-0000");
    await focusOn("apps");
    await page.keyboard.press("Enter");
    await page.getByRole("region", { name: "users" }).waitFor();
    await page.getByText("Artifacts of app-0000").waitFor();
    await rowsShown("names", "a.txt");
    await focusOn("names");
    await page.keyboard.press("Enter");
    await page
      .getByRole("region", { name: "versions" })
      .getByRole("heading", { name: "a.txt" })
      .waitFor();
    await context.close();
  });
});
