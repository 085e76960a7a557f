import type { ArtifactService, Scope } from "@artifact-kit/core";
import { orphanWalkthrough } from "./orphan-walkthrough.js";

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (data: Uint8Array) => new TextDecoder().decode(data);

/**
 * The README's tour of the contract, step by step, over any adapter: versions in two
 * scopes, paged listings, latest and pinned reads, deletes, no version reuse, and an orphaned
 * put reconciled.
 */
export async function walkthrough(
  service: ArtifactService,
  session: string,
  log: (line: string) => void,
): Promise<void> {
  const alice: Scope = { kind: "session", app: "demo", user: "alice", session };
  const bob: Scope = { kind: "session", app: "demo", user: "bob", session };

  log("1. put three versions of report.md and two other files for alice, one report.md for bob");
  for (const draft of ["draft", "review", "final"]) {
    const meta = await service.put(alice, "report.md", encode(`# Report (${draft})`), {
      mimeType: "text/markdown",
      metadata: { draft },
    });
    log(`   alice report.md v${meta.version}  ${meta.size} B  sha256 ${meta.sha256.slice(0, 12)}…`);
  }
  await service.put(alice, "charts/q1.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]), {
    mimeType: "image/png",
  });
  await service.put(alice, "data/ünïcode.csv", encode("a,b\n1,2\n"), { mimeType: "text/csv" });
  const bobs = await service.put(bob, "report.md", encode("# Bob's own report"), {
    mimeType: "text/markdown",
  });
  log(`   bob   report.md v${bobs.version} (same name, another scope: an independent artifact)`);

  log("2. list alice's names, two per page");
  let cursor: string | undefined;
  let pageNumber = 1;
  do {
    const page = await service.listNames(alice, { limit: 2, ...(cursor ? { cursor } : {}) });
    log(`   page ${pageNumber++}: ${page.items.join(", ")}${page.nextCursor ? "  (more…)" : ""}`);
    cursor = page.nextCursor;
  } while (cursor);

  log("3. list the versions of alice's report.md, two per page (metadata only, no bytes)");
  let versionCursor: number | undefined;
  do {
    const page = await service.listVersions(alice, "report.md", {
      limit: 2,
      ...(versionCursor ? { cursor: versionCursor } : {}),
    });
    log(`   ${page.items.map((m) => `v${m.version} ${JSON.stringify(m.metadata)}`).join("   ")}`);
    versionCursor = page.nextCursor;
  } while (versionCursor);

  log("4. read latest and a pinned version");
  const latest = await service.get(alice, "report.md");
  log(`   latest: v${latest.version} "${decode(latest.data)}"`);
  const pinned = await service.get(alice, "report.md", { version: 1 });
  log(`   pinned v1: "${decode(pinned.data)}"`);

  log("5. delete the latest version, then put again");
  await service.delete(alice, "report.md", "latest");
  log(`   after delete, latest is v${(await service.head(alice, "report.md")).version}`);
  const next = await service.put(alice, "report.md", encode("# Report (final, fixed)"), {
    mimeType: "text/markdown",
  });
  log(`   the next put is v${next.version}: version ${latest.version} is never reused`);

  log('6. delete "all", then put again');
  await service.delete(alice, "report.md", "all");
  const fresh = await service.put(alice, "report.md", encode("# Report (restart)"), {
    mimeType: "text/markdown",
  });
  log(`   the next put is v${fresh.version}: the high-water survives delete all`);

  const bobsStill = await service.get(bob, "report.md");
  log(`7. bob's report.md is untouched: v${bobsStill.version} "${decode(bobsStill.data)}"`);

  await orphanWalkthrough(service, alice, 8, log);
}
