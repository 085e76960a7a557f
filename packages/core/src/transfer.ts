// The adapter side of streaming transfer. An adapter that serves it natively implements
// `ArtifactTransfer` beside `ArtifactService` and declares which parts in
// `capabilities().transfer`; `@artifact-kit/stream` turns these primitives into WHATWG and
// Node streams. Nothing here buffers a whole artifact. The modules under transfer/ import
// each other, never this index, so that no import runs in a circle.

export * from "./transfer/blocks.js";
export * from "./transfer/contract.js";
export * from "./transfer/parse.js";
export * from "./transfer/upload-sink.js";
export * from "./transfer/verified-source.js";
