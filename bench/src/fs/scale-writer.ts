import { FsArtifactService } from "@artifact-kit/fs";

// The other process of the growth bench's "while another process puts" rows (scale.bench.ts):
// puts new versions of one name into a store, one after another, until told to stop. Says
// "writing" once its first put is published, and "stopped" after its last.
//
//   fork("dist/fs/scale-writer.js", [root, maxVersionsPerName, maxNamesPerScope, scope, name])

const [root, maxVersionsPerName, maxNamesPerScope, scopeJson, name] = process.argv.slice(2);
if (!root || !maxVersionsPerName || !maxNamesPerScope || !scopeJson || !name) {
  throw new Error("usage: scale-writer.js root maxVersionsPerName maxNamesPerScope scope name");
}
const service = await FsArtifactService.open({
  root,
  maxVersionsPerName: Number(maxVersionsPerName),
  maxNamesPerScope: Number(maxNamesPerScope),
});
let stopping = false;
process.on("message", () => {
  stopping = true;
});
const payload = new Uint8Array(64).fill(9);
let puts = 0;
try {
  while (!stopping) {
    await service.put(JSON.parse(scopeJson), name, payload);
    puts += 1;
    if (puts === 1) process.send?.("writing");
  }
} catch (error) {
  // The store's version ceiling ends the writing early: the bench gives it room for the run.
  if ((error as { code?: string }).code !== "capacity_reached") throw error;
  if (puts === 0) process.send?.("writing");
} finally {
  await service.close();
}
process.send?.(`stopped after ${puts} puts`);
process.disconnect?.();
