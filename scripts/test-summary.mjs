#!/usr/bin/env node
// Adds up every vitest "Tests" line of a CI log into one closing line:
// "tests: N passed, N failed, N skipped". Above it, the failed tests by name with the first
// line of each one's error: what a reader of the log's last lines needs first, when the
// failure itself scrolled out of a long run's tail.
import { readFileSync } from "node:fs";
import { stripVTControlCharacters } from "node:util";

const MAX_FAILURE_LINES = 40;

const lines = stripVTControlCharacters(readFileSync(process.argv[2] ?? 0, "utf8")).split("\n");
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const line of lines) {
  if (!/\bTests\s+\d/.test(line)) continue;
  for (const [, count, kind] of line.matchAll(/(\d+) (passed|failed|skipped)/g)) {
    totals[kind] += Number(count);
  }
}

// vitest names a failed test in its summary as "FAIL  file > describe > test", the error's
// first line a few lines below; turbo prefixes each line with its task.
const failures = [];
lines.forEach((line, at) => {
  if (!/\bFAIL\s+\S/.test(line)) return;
  failures.push(line.trim());
  const error = lines.slice(at + 1, at + 6).find((next) => /\w*Error\b/.test(next));
  if (error !== undefined) failures.push(`    ${error.trim()}`);
});
if (failures.length > 0) {
  console.log("failed tests:");
  const unique = [...new Set(failures)];
  for (const line of unique.slice(0, MAX_FAILURE_LINES)) console.log(`  ${line}`);
  if (unique.length > MAX_FAILURE_LINES)
    console.log(`  ... and ${unique.length - MAX_FAILURE_LINES} more lines`);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
