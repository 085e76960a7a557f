import { inspect } from "node:util";
import type { RunStore } from "../../run-store.js";

/** One call with a bad argument; every one must fail with invalid_argument and change nothing. */
export interface InvalidCall {
  readonly label: string;
  /** The argument the error's detail.field must name. */
  readonly field: "runId" | "stepId" | "path" | "content";
  readonly call: (store: RunStore) => Promise<unknown>;
}

// The store is typed, so wrong types are smuggled in through `unknown`, as from JavaScript.
const untyped = <T>(value: unknown) => value as T;

/** Blank: only white space (what `trim` removes), ASCII or not, which may open the string. */
const BLANKS: readonly string[] = ["   ", "\t\n", "\u00a0", "\u3000 ", "\ufeff", "\u2028"];
const BAD_IDS: readonly unknown[] = ["", ...BLANKS, "a\0b", "\uD800", 7, undefined];
const BAD_PATHS: readonly unknown[] = [
  "",
  ...BLANKS,
  "/a",
  "a/",
  "a//b",
  "./a",
  "a/.",
  "../a",
  "a/../b",
  "a\0b",
  7,
];
const BAD_CONTENTS: readonly unknown[] = [
  undefined,
  null,
  42,
  { text: "x" },
  [1, 2],
  "\uDC00 lone",
];

export function invalidCalls(runId: string, path: string): InvalidCall[] {
  const calls: InvalidCall[] = [];
  for (const bad of BAD_IDS) {
    const id = untyped<string>(bad);
    const field = "runId";
    calls.push(
      {
        label: `register(runId ${inspect(bad)})`,
        field,
        call: (s) => s.register(id, "step", path, "x"),
      },
      {
        label: `register(stepId ${inspect(bad)})`,
        field: "stepId",
        call: (s) => s.register(runId, id, path, "x"),
      },
      { label: `find(runId ${inspect(bad)})`, field, call: (s) => s.find(id, path) },
      { label: `artifacts(runId ${inspect(bad)})`, field, call: (s) => s.artifacts(id) },
      { label: `remove(runId ${inspect(bad)})`, field, call: (s) => s.remove(id, path) },
      { label: `clear(runId ${inspect(bad)})`, field, call: (s) => s.clear(id) },
    );
  }
  for (const bad of BAD_PATHS) {
    const badPath = untyped<string>(bad);
    const field = "path";
    calls.push(
      {
        label: `register(path ${inspect(bad)})`,
        field,
        call: (s) => s.register(runId, "step", badPath, "x"),
      },
      { label: `find(path ${inspect(bad)})`, field, call: (s) => s.find(runId, badPath) },
      { label: `remove(path ${inspect(bad)})`, field, call: (s) => s.remove(runId, badPath) },
    );
  }
  for (const bad of BAD_CONTENTS) {
    const content = untyped<string>(bad);
    calls.push({
      label: `register(content ${inspect(bad)})`,
      field: "content",
      call: (s) => s.register(runId, "step", path, content),
    });
  }
  return calls;
}
