#!/usr/bin/env node
import { createRequire } from "node:module";
import { endQuietlyWhenReaderLeaves } from "./broken-pipe.js";
import { runCli } from "./program.js";

endQuietlyWhenReaderLeaves();
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
await runCli(process.argv, version);
