import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { BIN, cli, withTempDir } from "./support/cli.js";

// `artifact-kit serve` as a user starts it: a process that prints its URL, answers
// requests with the token, asks a resource-provider module, and stops on SIGTERM.

describe("artifact-kit serve", () => {
  it("serves with a token from the environment, applies the provider module, and stops cleanly", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "a");
      await cli(["put", "a.txt", "a.txt", "--app", "open"], { cwd });
      await cli(["put", "a.txt", "a.txt", "--app", "closed"], { cwd });
      await writeFile(
        join(cwd, "provider.mjs"),
        'export default ({ scope }) => (scope.app === "closed" ? "forbidden" : "allow");\n',
      );
      const token = "serve-test-token-0123456789";
      const child = spawn(
        process.execPath,
        [BIN, "serve", "--port", "0", "--resource-provider", "provider.mjs", "--json"],
        {
          cwd,
          env: { ...process.env, ARTIFACT_KIT_API_TOKEN: token },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      try {
        const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
        const started = JSON.parse(line) as { url: string; token?: string };
        expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(started).not.toHaveProperty("token"); // the caller's own token is not echoed
        const auth = { authorization: `Bearer ${token}` };
        const open = await fetch(`${started.url}/v1/apps/open/names`, { headers: auth });
        expect(await open.json()).toEqual({
          scope: { kind: "app", app: "open" },
          items: ["a.txt"],
        });
        expect((await fetch(`${started.url}/v1/apps/closed/names`, { headers: auth })).status).toBe(
          403,
        );
        expect((await fetch(`${started.url}/v1/apps/open/names`)).status).toBe(401);
      } finally {
        child.kill("SIGTERM");
      }
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(0);
    });
  });

  it("generates and prints a token when none is given", async () => {
    await withTempDir(async (cwd) => {
      const { ARTIFACT_KIT_API_TOKEN: _, ...env } = process.env;
      const child = spawn(
        process.execPath,
        [BIN, "serve", "--port", "0", "--store", "memory:", "--json"],
        {
          cwd,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      try {
        const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
        const { url, token } = JSON.parse(line) as { url: string; token: string };
        expect(token.length).toBeGreaterThanOrEqual(32);
        const response = await fetch(`${url}/v1/apps/x/names`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(200);
      } finally {
        child.kill("SIGTERM");
      }
      await once(child, "exit");
    });
  });
});

describe("artifact-kit serve --scope", () => {
  it("serves the bound and what lies under it, refuses the rest, and lists the bound's line", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "a");
      for (const user of ["ana", "bo"]) {
        await cli(["put", "a.txt", "a.txt", "--app", "team", "--user", user], { cwd });
      }
      const token = "serve-scope-token-0123456789";
      const child = spawn(
        process.execPath,
        [BIN, "serve", "--port", "0", "--scope", "apps/team/users/ana", "--json"],
        {
          cwd,
          env: { ...process.env, ARTIFACT_KIT_API_TOKEN: token },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      try {
        const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
        const { url } = JSON.parse(line) as { url: string };
        const get = (path: string) =>
          fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        expect((await get("/v1/apps/team/users/ana/names")).status).toBe(200);
        expect((await get("/v1/apps/team/users/bo/names")).status).toBe(403);
        const users = await get("/v1/scopes?kind=user&app=team");
        expect(await users.json()).toEqual({
          kind: "user",
          items: [{ kind: "user", app: "team", user: "ana" }],
        });
      } finally {
        child.kill("SIGTERM");
      }
      await once(child, "exit");
    });
  });
});

describe("artifact-kit serve refuses bad arguments before it listens", () => {
  it("a missing resource-provider module is a usage error naming it, exit 2", async () => {
    await withTempDir(async (cwd) => {
      const result = await cli(
        ["serve", "--port", "0", "--store", "memory:", "--resource-provider", "nope.mjs"],
        { cwd },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^artifact-kit: invalid_argument: resource-provider: /);
      expect(result.stderr).toContain(join(cwd, "nope.mjs"));
    });
  });

  it("a bad allowed origin or request timeout is exit 2", async () => {
    await withTempDir(async (cwd) => {
      for (const flags of [
        ["--allow-origin", "*"],
        ["--allow-origin", "https://*.example"],
        ["--request-timeout-ms", "0"],
        ["--request-timeout-ms", "300001"],
        ["--scope", "nope"],
        ["--scope", "apps/a/users"],
        ["--scope", "apps/a%00"],
        ["--max-upload-bytes", "0"],
      ]) {
        const result = await cli(["serve", "--port", "0", "--store", "memory:", ...flags], {
          cwd,
        });
        expect(result.code, flags.join(" ")).toBe(2);
      }
    });
  });
});
