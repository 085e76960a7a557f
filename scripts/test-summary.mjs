#!/usr/bin/env node
// Adds up every vitest "Tests" line of a CI log into one closing line:
// "tests: N passed, N failed, N skipped".
import { readFileSync } from "node:fs";
import { stripVTControlCharacters } from "node:util";

const log = stripVTControlCharacters(readFileSync(process.argv[2] ?? 0, "utf8"));
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const line of log.split("\n")) {
  if (!/\bTests\s+\d/.test(line)) continue;
  for (const [, count, kind] of line.matchAll(/(\d+) (passed|failed|skipped)/g)) {
    totals[kind] += Number(count);
  }
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
