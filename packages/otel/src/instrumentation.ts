import { createRequire } from "node:module";

/** The instrumentation scope every tracer and meter of this package is obtained under. */
export const INSTRUMENTATION_SCOPE = "@artifact-kit/otel";

// dist/ sits beside package.json, so the published version is read from the one place it is kept.
export const INSTRUMENTATION_VERSION = (
  createRequire(import.meta.url)("../package.json") as { version: string }
).version;
