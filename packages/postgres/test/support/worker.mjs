// One OS process of the cross-process tests, on the built package:
//   node worker.mjs race <url> <schema> <name> <count>
//     puts <count> artifacts to <name> one after another, deleting every third of its own
//     by number, and prints {acked: [[version, sha256]...], deleted: [version...]} as JSON.
//   node worker.mjs upload <url> <schema> <name>
//     uploads 2.5 MiB artifacts in 96 KiB chunks to <name> forever, printing "ready" once
//     the first block is staged; the parent SIGKILLs it somewhere in there.
//   node worker.mjs idle <url> <schema> <name>
//     on a pool with no 'error' listener (as a caller may well leave it), puts one artifact,
//     prints "ready", and idles until a line arrives on stdin; then reads the artifact back
//     (trying again while the server recovers), prints its size and closes: exit code 0.
import pg from "pg";
import { PostgresArtifactService } from "../../dist/index.js";

const [mode, url, schema, name, count] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 2 });
if (mode !== "idle") pool.on("error", () => undefined);
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
} else if (mode === "idle") {
  const put = await Promise.all([
    service.put(scope, name, new Uint8Array(10)),
    service.put(scope, name, new Uint8Array(10)),
  ]);
  process.stdout.write("ready\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  for (let tries = 0; ; tries++) {
    try {
      const got = await service.get(scope, name, { version: put[0].version });
      process.stdout.write(`size ${got.size}\n`);
      break;
    } catch (error) {
      if (error?.code !== "unavailable" || tries > 5) throw error;
    }
  }
  await service.close();
  await pool.end();
  process.stdin.destroy();
} else {
  throw new Error(`unknown mode ${mode}`);
}
