import { randomUUID } from "node:crypto";
import type { ArtifactService, Scope } from "@artifact-kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, parseStoreUri } from "../../src/index.js";
import { databaseUrl } from "../support/servers.js";
import {
  BROWSER_TEST_TIMEOUT_MS,
  type ConsoleFixture,
  chooseName,
  openScope,
  startConsole,
} from "./fixture.js";

// The same console over a second adapter: PostgreSQL (the server the postgres package's
// global setup started or found), in a schema of its own.

const scope: Scope = { kind: "user", app: "pg-app", user: "ana" };
let service: ArtifactService;
let fixture: ConsoleFixture;

beforeAll(async () => {
  const url = new URL(databaseUrl());
  url.searchParams.set("schema", `console_${randomUUID().replaceAll("-", "")}`);
  service = await openStore(parseStoreUri(url.href), { create: true });
  await service.put(
    scope,
    "summary.json",
    new TextEncoder().encode('{"score": 0.93, "runs": [1, 2]}'),
    {
      mimeType: "application/json",
    },
  );
  await service.put({ kind: "app", app: "pg-other" }, "x.txt", new TextEncoder().encode("x"));
  fixture = await startConsole(service);
});
afterAll(async () => {
  await fixture?.stop();
  await service?.close();
});

describe("the console on postgres", { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("discovers the scope, folds JSON, uploads and deletes", async () => {
    const { page } = fixture;
    await openScope(page, scope);
    await chooseName(page, "summary.json");
    await page.locator("details.json .json-key", { hasText: "score" }).waitFor();
    expect(await page.locator(".json-number").first().textContent()).toBe("0.93");

    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("from the browser"),
    });
    // The name field starts as the chosen name (a new version of it): this is a new name.
    await page.getByLabel(/^Name/).fill("notes.txt");
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Uploaded notes.txt as version 1" }).waitFor();
    const stored = await service.get(scope, "notes.txt");
    expect(new TextDecoder().decode(stored.data)).toBe("from the browser");
    expect(stored.mimeType).toBe("text/plain");

    await page.getByRole("button", { name: "Delete this version" }).click();
    const dialog = page.getByRole("dialog", { name: "confirm deletion" });
    expect(await dialog.locator(".what").textContent()).toBe("version 1 of notes.txt");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page
      .getByRole("listbox", { name: "names" })
      .getByRole("option", { name: "notes.txt" })
      .waitFor({ state: "detached" });
    expect((await service.listNames(scope)).items).toEqual(["summary.json"]);
  });
});
