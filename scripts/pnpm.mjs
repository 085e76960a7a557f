#!/usr/bin/env node
// Runs the pinned pnpm through npx so that a fresh machine needs only Node and npm.
// corepack is not used: its signature check fails on machines without internet.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const pinned = manifest.packageManager;
const result = spawnSync("npx", ["-y", pinned, ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" },
});
process.exit(result.status ?? 1);
