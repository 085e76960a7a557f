import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { walkthrough } from "@artifact-kit/cli";
import { FsArtifactService } from "@artifact-kit/fs";

// The store lives in ./.artifacts of the directory `npm run demo` was started from, and
// keeps every run: each run is a new session, so earlier runs stay readable.
const root = resolve(process.env.INIT_CWD ?? process.cwd(), ".artifacts");
await mkdir(root, { recursive: true });
const service = await FsArtifactService.open({ root });
const session = new Date().toISOString();
console.log(`artifact-kit demo: fs adapter at ${service.root}, session ${session}\n`);
try {
  await walkthrough(service, session, (line) => console.log(line));
} finally {
  await service.close();
}
