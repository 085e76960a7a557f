// Azurite's blob service as the tests run it: the pinned emulator with its extent garbage
// collector switched off.
//
//   node azurite-blob.cjs <azurite package folder> [azurite-blob options...]
//
// Azurite keeps each write's bytes as an in-memory extent of its own, and its sweep (every
// 10 minutes) re-sorts the whole extent index for each extent it frees: after the thousands
// of writes of a test run, one sweep held the server's only thread for over five minutes
// while requests waited (seen with the inspector). A test server lives for one run:
// what the sweep would give back is the bytes of deleted blobs, a small share of the memory.
"use strict";
const { join } = require("node:path");

const [azurite] = process.argv.splice(2, 1);
if (!azurite) throw new Error("usage: node azurite-blob.cjs <azurite package folder> [options]");
const { default: BlobGCManager } = require(join(azurite, "dist/src/blob/gc/BlobGCManager.js"));
BlobGCManager.prototype.markSweep = async () => {};
require(join(azurite, "dist/src/blob/main.js"));
