import { crc32, deflateSync } from "node:zlib";
import type { ArtifactService, Scope } from "@artifact-kit/core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { visible } from "../../console/src/display.js";
import { type DeveloperApi, startDeveloperApi } from "../../src/index.js";
import { launchChromium, signIn } from "../support/browser.js";

export const TOKEN = "console-token-0123456789abcdef";
export const LINK_SECRET = "console-link-secret-0123456789abcdef0123";

/**
 * Limits for hangs, never measures: a browser test and each page action may take this long
 * on a loaded machine (CI shares two cores) before it counts as hung.
 */
export const BROWSER_TEST_TIMEOUT_MS = 300_000;
const ACTION_TIMEOUT_MS = 120_000;

/** A server over `service`, a browser, and a signed-in page; `stop` ends all three. */
export interface ConsoleFixture {
  api: DeveloperApi;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Another browser context (no session), with the same action limit. */
  newContext: () => Promise<BrowserContext>;
  stop: () => Promise<void>;
}

export async function startConsole(service: ArtifactService): Promise<ConsoleFixture> {
  const api = await startDeveloperApi({ service, token: TOKEN, linkSecret: LINK_SECRET });
  const browser = await launchChromium();
  const newContext = async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    return context;
  };
  const context = await newContext();
  const page = await context.newPage();
  await signIn(page, api.url, TOKEN);
  return {
    api,
    browser,
    context,
    page,
    newContext,
    stop: async () => {
      await browser.close();
      await api.close();
    },
  };
}

/** From the apps down to `scope`, choosing each level in its list (paging as needed), by the
 * ids as the console shows them. */
export async function openScope(page: Page, scope: Scope): Promise<void> {
  await chooseOption(page, "apps", visible(scope.app));
  if (scope.kind === "app") return;
  await chooseOption(page, "users", visible(scope.user));
  if (scope.kind === "user") return;
  await chooseOption(page, "sessions", visible(scope.session));
}

/**
 * Chooses the option `text` of the listbox `list`, pressing End (which loads the next page
 * when the list nears its end) until the option is there; each press waits for the list's
 * count to change, so no step depends on timing.
 */
export async function chooseOption(page: Page, list: string, text: string): Promise<void> {
  const box = page.getByRole("listbox", { name: list, exact: true });
  const option = box.getByRole("option", { name: text, exact: true });
  const status = page.locator(".virtual", { has: box }).locator(".list-status");
  await status.filter({ hasNotText: "loading" }).waitFor();
  while ((await option.count()) === 0) {
    const before = (await status.textContent()) ?? "";
    await box.focus();
    await box.press("End");
    if (!before.includes("more to load")) {
      // Everything is loaded: End scrolled to the last rows, which render on the scroll.
      await option.waitFor();
      break;
    }
    await status.filter({ hasNotText: before }).filter({ hasNotText: "loading" }).waitFor();
  }
  await option.click();
}

export async function chooseName(page: Page, name: string): Promise<void> {
  await chooseOption(page, "names", name);
  await page.getByRole("region", { name: "versions" }).waitFor();
}

/** A valid PNG of `width` x `height` solid pixels, made here (no fixture files). */
export function png(width: number, height: number, rgb: [number, number, number]): Uint8Array {
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(new Array(width).fill(rgb).flat())]);
  const raw = Buffer.concat(new Array(height).fill(row));
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
