#!/usr/bin/env node
import { createRequire } from "node:module";
import { runCli } from "./program.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
await runCli(process.argv, version);
