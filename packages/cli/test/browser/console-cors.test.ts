import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeveloperApi, startDeveloperApi } from "../../src/index.js";
import { launchChromium } from "../support/browser.js";
import { BROWSER_TEST_TIMEOUT_MS, TOKEN } from "./fixture.js";

// `--allow-origin` in Chromium: a page on another origin (a plain page of a second local
// server) uploads, makes a link, reads and deletes through the API with the bearer token,
// each non-simple request after a real preflight; a page on an origin that is not allowed
// cannot read a single answer.

const scope: Scope = { kind: "user", app: "tools", user: "ana" };
let service: MemoryArtifactService;
let api: DeveloperApi;
let allowedPage: Server;
let otherPage: Server;
let browser: Browser;

/** A page with no policy of its own, at its own origin: the "tool" calling the API. */
async function blankPageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>tool</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}` };
}

async function openPage(origin: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  return page;
}

/** Runs the calls a cross-origin tool makes, in the page; returns what it could read. */
async function callApi(page: Page, apiUrl: string) {
  return page.evaluate(
    async ({ apiUrl, token }) => {
      const auth = { authorization: `Bearer ${token}` };
      const base = `${apiUrl}/v1/apps/tools/users/ana/names/cors%2Fnote.txt`;
      const put = await fetch(base, {
        method: "PUT",
        headers: {
          ...auth,
          "content-type": "text/plain",
          "x-artifact-metadata": encodeURIComponent(JSON.stringify({ from: "tool" })),
        },
        body: "from another origin",
      });
      const link = await fetch(`${base}/versions/latest/link`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ expiresInSeconds: 60 }),
      });
      const range = await fetch(`${base}/versions/1/content`, {
        headers: { ...auth, range: "bytes=5-11" },
      });
      const rangeText = await range.text();
      const rangeHeader = range.headers.get("content-range");
      const removed = await fetch(`${base}/versions/1`, { method: "DELETE", headers: auth });
      return {
        put: put.status,
        link: link.status,
        linkBody: (await link.json()) as { path?: string },
        range: range.status,
        rangeText,
        rangeHeader,
        removed: removed.status,
      };
    },
    { apiUrl, token: TOKEN },
  );
}

beforeAll(async () => {
  service = new MemoryArtifactService();
  const allowed = await blankPageServer();
  const other = await blankPageServer();
  allowedPage = allowed.server;
  otherPage = other.server;
  api = await startDeveloperApi({ service, token: TOKEN, allowedOrigins: [allowed.origin] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  allowedPage?.close();
  otherPage?.close();
  await service?.close();
});

describe("cross-origin calls", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("lets an allowed origin upload, link, read a range and delete", async () => {
    const { port } = allowedPage.address() as AddressInfo;
    const page = await openPage(`http://127.0.0.1:${port}`);
    const seen = await callApi(page, api.url);
    expect(seen).toMatchObject({
      put: 201,
      link: 200,
      range: 206,
      rangeText: "another",
      rangeHeader: "bytes 5-11/19",
      removed: 200,
    });
    expect(seen.linkBody.path?.startsWith("/links/")).toBe(true);
    await expect(service.head(scope, "cors/note.txt", { version: 1 })).rejects.toMatchObject({
      code: "not_found",
    });
    await page.close();
  });

  it("keeps every answer from an origin that is not allowed", async () => {
    const { port } = otherPage.address() as AddressInfo;
    const page = await openPage(`http://127.0.0.1:${port}`);
    const failure = await callApi(page, api.url).then(
      () => "read an answer",
      (error: Error) => error.message,
    );
    expect(failure).toContain("Failed to fetch");
    // The preflight was refused, so the upload never reached the store.
    expect((await service.listNames(scope)).items).toEqual([]);
    await page.close();
  });
});
