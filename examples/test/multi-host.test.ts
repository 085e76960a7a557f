import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import "./support/provided.js";

// The built example (turbo builds before it tests), run as a user runs it.
const example = fileURLToPath(new URL("../dist/multi-host.js", import.meta.url));

async function runExample(env: Record<string, string>) {
  const result = await promisify(execFile)(process.execPath, [example], {
    env: {
      ...process.env,
      DATABASE_URL: inject("databaseUrl"),
      S3_ENDPOINT: inject("s3Endpoint"),
      ...env,
    },
    timeout: 570_000,
  }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
    throw new Error(`exit ${error.code}\n${error.stdout}\n${error.stderr}`);
  });
  const line = /^summary (.*)$/m.exec(result.stdout)?.[1];
  expect(line, result.stdout).toBeDefined();
  return JSON.parse(line as string);
}

describe("examples/multi-host: hosts as OS processes on one PostgreSQL and one S3", () => {
  it("settles the killed host's orphan by compensating it; every ack stays readable", async () => {
    // 3 hosts: the victim acks 6 puts and dies holding a 7th, two survivors ack 12 each.
    const summary = await runExample({ HOSTS: "3", PUTS: "12", POLICY: "compensate" });
    expect(summary).toEqual({
      hosts: 3,
      killed: 1,
      acked: 30,
      readable: 30,
      distinctVersions: 30,
      liveVersions: 30,
      orphans: 1,
      orphanOutcome: "compensated",
      reconcilerPasses: expect.any(Number),
      openEffects: 0,
      failures: [],
    });
    expect(summary.reconcilerPasses).toBeGreaterThanOrEqual(1);
  });

  it("commits the orphan when the policy says so: it stays live beside the acks", async () => {
    const summary = await runExample({ HOSTS: "2", PUTS: "4", POLICY: "commit" });
    expect(summary).toMatchObject({
      hosts: 2,
      acked: 6,
      readable: 6,
      distinctVersions: 6,
      liveVersions: 7,
      orphans: 1,
      orphanOutcome: "committed",
      openEffects: 0,
      failures: [],
    });
  });
});
