// One OS process of the cross-process tests, on the built package:
//   node worker.mjs race <url> <schema> <name> <count>
//     puts <count> artifacts to <name> one after another, deleting every third of its own
//     by number, and prints {acked: [[version, sha256]...], deleted: [version...]} as JSON.
//   node worker.mjs upload <url> <schema> <name>
//     uploads 2.5 MiB artifacts in 96 KiB chunks to <name> forever, printing "ready" once
//     the first block is staged; the parent SIGKILLs it somewhere in there.
import pg from "pg";
import { PostgresArtifactService } from "../../dist/index.js";

const [mode, url, schema, name, count] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 2 });
pool.on("error", () => undefined);
const service = await PostgresArtifactService.open({ pool, schema });
const scope = { kind: "app", app: "processes" };

if (mode === "race") {
  const acked = [];
  const deleted = [];
  for (let i = 0; i < Number(count); i++) {
    const meta = await service.put(scope, name, new TextEncoder().encode(`${process.pid}:${i}`));
    acked.push([meta.version, meta.sha256]);
    if (i % 3 === 2) {
      const victim = acked[acked.length - 2][0];
      await service.delete(scope, name, victim);
      deleted.push(victim);
    }
  }
  process.stdout.write(JSON.stringify({ acked, deleted }));
  await pool.end();
} else if (mode === "upload") {
  const chunk = new Uint8Array(96 * 1024);
  let ready = false;
  for (let round = 0; ; round++) {
    const upload = await service.openUpload(scope, name);
    for (let written = 0; written < 2.5 * 1024 * 1024; written += chunk.byteLength) {
      chunk.fill((round + written) % 251);
      await upload.write(
        chunk.subarray(0, Math.min(chunk.byteLength, 2.5 * 1024 * 1024 - written)),
      );
      if (!ready && written >= 1024 * 1024) {
        ready = true;
        process.stdout.write("ready\n");
      }
    }
    await upload.finish();
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
