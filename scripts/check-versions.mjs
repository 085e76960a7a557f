#!/usr/bin/env node
// Release versions a user can install together (issue 33.15). For every published package:
// - it has a release version: not 0.0.0, which a caret range from a dependent pins exactly;
// - each of its @artifact-kit dependencies and peers, as packed (workspace:^ becomes ^ the
//   sibling's version), accepts the sibling's version now, so tarballs packed from this tree
//   install together without overrides;
// - the release the pending changesets plan (`changeset status`) takes no package to a major
//   version no changeset asked for: on 0.x a caret peer range (`^0.1.0`) excludes the next
//   minor, and changesets then bumps every dependent of that peer to a new major. Such a peer
//   takes an explicit range instead, as the CLI's do (`workspace:>=0.1.0 <1.0.0`).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import semver from "semver";

const root = resolve(import.meta.dirname, "..");
const problems = [];

const manifests = readdirSync(join(root, "packages"))
  .map((dir) => JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")))
  .filter((manifest) => !manifest.private);
const versionOf = new Map(manifests.map((manifest) => [manifest.name, manifest.version]));

/** The range a workspace: specifier is packed as, for a sibling at `version`. */
function packedRange(spec, version) {
  const range = spec.replace(/^workspace:/, "");
  if (range === "^" || range === "~") return `${range}${version}`;
  if (range === "*") return version;
  return range;
}

/** Each @artifact-kit dependency or peer of `manifest`: [kind, name, packed range at `versions`]. */
function internalRanges(manifest, versions) {
  return ["dependencies", "peerDependencies"].flatMap((kind) =>
    Object.entries(manifest[kind] ?? {})
      .filter(([name]) => versions.has(name))
      .map(([name, spec]) => [kind, name, packedRange(spec, versions.get(name))]),
  );
}

for (const manifest of manifests) {
  if (!semver.valid(manifest.version) || semver.eq(manifest.version, "0.0.0")) {
    problems.push(`${manifest.name} has no release version (${manifest.version})`);
  }
  for (const [kind, name, range] of internalRanges(manifest, versionOf)) {
    if (!semver.satisfies(versionOf.get(name), range)) {
      problems.push(
        `${manifest.name}: its ${kind} range for ${name} (${range}) rejects ${name} ${versionOf.get(name)}`,
      );
    }
  }
}

// changeset status writes its plan to a path it takes relative to the working directory.
const output = join("node_modules", `.check-versions-${process.pid}.json`);
try {
  execFileSync(
    "node",
    [join(root, "scripts/pnpm.mjs"), "exec", "changeset", "status", `--output=${output}`],
    { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
  );
  const status = JSON.parse(readFileSync(join(root, output), "utf8"));
  const asked = new Map();
  for (const changeset of status.changesets) {
    for (const { name, type } of changeset.releases) {
      if (type === "major") asked.set(name, true);
    }
  }
  const planned = new Map(versionOf);
  for (const release of status.releases) {
    if (!versionOf.has(release.name)) continue;
    planned.set(release.name, release.newVersion);
    if (release.type === "major" && !asked.has(release.name)) {
      problems.push(
        `the planned release takes ${release.name} to ${release.newVersion}, a major no changeset asked for (a caret peer range on 0.x left behind by a sibling's minor?)`,
      );
    }
  }
  for (const manifest of manifests) {
    for (const [kind, name, range] of internalRanges(manifest, planned)) {
      if (!semver.satisfies(planned.get(name), range)) {
        problems.push(
          `after the planned release, ${manifest.name}'s ${kind} range for ${name} (${range}) rejects ${planned.get(name)}`,
        );
      }
    }
  }
} finally {
  rmSync(join(root, output), { force: true });
}

for (const problem of problems) console.error(`check-versions: ${problem}`);
if (problems.length > 0) process.exit(1);
console.log(
  `check-versions: ${manifests.length} published packages install together, now and after the planned release`,
);
