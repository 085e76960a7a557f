import fc from "fast-check";
import { DEFAULT_MIME_TYPE } from "../../limits.js";
import { TRANSFER_BLOCK_BYTES } from "../../transfer.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { artifactCommands } from "../generators.js";
import { withHandles } from "../handles.js";
import { type ModelVersion, ReferenceModel } from "../model.js";
import {
  expectArtifact,
  expectEveryViewAgrees,
  expectPlausibleCreatedAt,
  expectRecord,
  readAllNames,
} from "../observe.js";
import { seededBytes } from "../payload.js";
import type { ServiceHolder } from "../subject.js";

// Maintenance (fs and object-store repair(), database migrations) is what an operator runs
// on a live store: it may tidy what is unfinished, never what is published. These laws run
// the subject's `maintain` hook between random commands and while puts, deletes and reads
// are in flight, then read everything back: a repair that removes a young reservation,
// resurrects a tombstoned version, rewrites a record or forgets a key binding fails here.

const NAMES = ["maintained/a", "maintained/b", "maintained/c"] as const;
/** A name emptied by delete("all") before maintenance: only its high-water remains. */
const EMPTIED = "maintained/emptied";
const ALL_NAMES = [...NAMES, EMPTIED];

interface Published {
  readonly name: string;
  readonly version: ModelVersion;
}

/** One put, its reply checked field by field; the caller records it once puts settle. */
async function publish(
  service: ArtifactService,
  scope: Scope,
  name: string,
  seed: number,
  idempotencyKey?: string,
): Promise<Published> {
  const data = seededBytes(24 + seed, seed);
  const metadata = { seed };
  const startedAt = Date.now();
  const meta = await service.put(scope, name, data.slice(), {
    metadata,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
  const version: ModelVersion = {
    version: meta.version,
    data,
    mimeType: DEFAULT_MIME_TYPE,
    metadata,
    createdAt: expectPlausibleCreatedAt(meta, startedAt, "put reply"),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  };
  expectRecord(meta, scope, name, version, "put reply");
  return { name, version };
}

/** Records settled puts in version order (the model's high-water only goes up). */
function recordAll(model: ReferenceModel, scope: Scope, published: readonly Published[]) {
  const ordered = [...published].sort((a, b) => a.version.version - b.version.version);
  for (const { name, version } of ordered) model.record(scope, name, version);
}

async function expectStoreAgrees(
  service: ArtifactService,
  model: ReferenceModel,
  scope: Scope,
  step: string,
) {
  for (const name of ALL_NAMES) await expectEveryViewAgrees(service, model, scope, name, step);
  expectEqual(await readAllNames(service, scope, 2), model.names(scope), `${step}: listNames`);
  for (const name of ALL_NAMES) {
    for (const version of model.live(scope, name)) {
      if (version.idempotencyKey === undefined) continue;
      const retry = await service.put(scope, name, version.data.slice(), {
        metadata: version.metadata,
        idempotencyKey: version.idempotencyKey,
      });
      expectRecord(retry, scope, name, version, `${step}: a keyed retry of ${name}`);
    }
  }
}

/**
 * Puts each name twice and deletes the first of the two by number, then runs maintenance: the
 * put below the top is a hole in the name's run of versions. Each put gets a version above
 * every one handed out (maintenance that drops what holds a high-water, such as a deleted
 * version's reservation or an emptied name's record, lets a fresh instance hand one out
 * again), and the caller then reads latest through an instance that read before the puts
 * (`overAHoleSeenByAnother`), so that a hint it kept from then cannot hide the version above
 * the hole.
 */
async function putOverAHoleThenMaintain(
  { service, maintain }: { service: ArtifactService; maintain(): Promise<void> },
  model: ReferenceModel,
  scope: Scope,
) {
  for (const [i, name] of ALL_NAMES.entries()) {
    const puts: Published[] = [];
    for (let k = 0; k < 2; k++) {
      const highWater = model.highWater(scope, name);
      const put = await publish(service, scope, name, 200 + 10 * i + k);
      expectTrue(
        put.version.version > highWater,
        `a put to ${name} after maintenance got version ${put.version.version}, not above ${highWater}, the highest handed out before`,
      );
      model.record(scope, name, put.version);
      puts.push(put);
    }
    const below = (puts[0] as Published).version.version;
    await service.delete(scope, name, below);
    model.delete(scope, name, below);
  }
  await maintain();
}

/** Reads every version in `versions` until maintenance has ended (one pass at least). */
async function readUntil(
  service: ArtifactService,
  scope: Scope,
  versions: readonly Published[],
  ended: () => boolean,
) {
  do {
    for (const { name, version } of versions) {
      const pinned = { version: version.version };
      const read = await service.get(scope, name, pinned);
      expectArtifact(read, scope, name, version, "a get while maintenance runs");
    }
  } while (!ended());
}

/**
 * Where the service streams uploads: one opened and half written before maintenance runs;
 * `finish` writes the rest and publishes it (the caller waits for a maintenance pass first:
 * an upload idle for less than any lease or grace period must survive it).
 */
async function halfWrittenUpload(
  service: ArtifactService,
  scope: Scope,
  name: string,
): Promise<{ finish(): Promise<Published> } | undefined> {
  if (!declaresTransfer(service, "streamingUpload")) return;
  const { quotas } = service.capabilities();
  const data = seededBytes(3 * TRANSFER_BLOCK_BYTES + 17, 99);
  if (data.byteLength > (quotas.bounds.maxArtifactBytes ?? Number.POSITIVE_INFINITY)) return;
  const metadata = { seed: 99 };
  const startedAt = Date.now();
  const sink = await service.openUpload(scope, name, { metadata });
  await sink.write(data.slice(0, 2 * TRANSFER_BLOCK_BYTES));
  return {
    async finish() {
      await sink.write(data.slice(2 * TRANSFER_BLOCK_BYTES));
      const meta = await sink.finish();
      const version: ModelVersion = {
        version: meta.version,
        data,
        mimeType: DEFAULT_MIME_TYPE,
        metadata,
        createdAt: expectPlausibleCreatedAt(meta, startedAt, "the upload's reply"),
      };
      expectRecord(meta, scope, name, version, "the reply of an upload that spanned maintenance");
      return { name, version };
    },
  };
}

/**
 * Maintenance runs while puts (keyed and not), deletes and reads run; readers never miss a
 * version nothing deletes, and afterwards (and after maintenance again, and a restart) every
 * view, every name and every key binding says what the model says.
 */
async function maintenanceDuringWrites({ service, maintain, hooks, reopen, fresh }: LawContext) {
  const scope = freshScope("maintenance");
  const model = new ReferenceModel();
  const seeded: Published[] = [];
  for (const [i, name] of NAMES.entries()) {
    seeded.push(await publish(service, scope, name, 10 * i + 1));
    seeded.push(await publish(service, scope, name, 10 * i + 2, `seed-key-${i}`));
    seeded.push(await publish(service, scope, name, 10 * i + 3));
  }
  const [a, b, c] = NAMES;
  // One name past version 9 (its latest deleted below, then four more): a repair that
  // rebuilds an index or a latest pointer from versions ordered as strings (10 before 9)
  // shows in its listing and its latest.
  for (let k = 0; k < 7; k++) seeded.push(await publish(service, scope, b, 100 + k));
  for (let k = 0; k < 2; k++) seeded.push(await publish(service, scope, EMPTIED, 150 + k));
  recordAll(model, scope, seeded);
  await service.delete(scope, EMPTIED, "all");
  model.delete(scope, EMPTIED, "all");
  const lowestOf = (name: string) => model.live(scope, name)[0]?.version ?? 1;
  await service.delete(scope, a, lowestOf(a));
  model.delete(scope, a, lowestOf(a));
  await service.delete(scope, b, "latest");
  model.delete(scope, b, "latest");
  await expectStoreAgrees(service, model, scope, "before maintenance");

  const doomed = lowestOf(c);
  const untouched = NAMES.flatMap((name) =>
    model
      .live(scope, name)
      .filter((version) => name !== c || version.version !== doomed)
      .map((version) => ({ name, version })),
  );
  const halfOpen = await halfWrittenUpload(service, scope, a);
  // Maintenance runs again and again until the writes have settled, so that its scans meet
  // puts and the delete between their steps; readers read until maintenance has ended.
  let settled = false;
  let ended = false;
  const writes = Promise.all(
    NAMES.map(async (name, i) => {
      const mine: Published[] = [];
      for (let k = 0; k < 4; k++) {
        const key = k % 2 === 1 ? `during-key-${i}-${k}` : undefined;
        mine.push(await publish(service, scope, name, 10 * i + 4 + k, key));
      }
      if (name === c) await service.delete(scope, c, doomed);
      return mine;
    }),
  ).finally(() => {
    settled = true;
  });
  let firstPass: () => void = () => undefined;
  const afterFirstPass = new Promise<void>((resolve) => {
    firstPass = resolve;
  });
  const maintenance = (async () => {
    do {
      await maintain();
      firstPass();
    } while (!settled);
  })().finally(() => {
    ended = true;
  });
  const upload = afterFirstPass.then(() => halfOpen?.finish());
  const reads = readUntil(service, scope, untouched, () => ended);
  const [, published, uploaded] = await Promise.all([maintenance, writes, upload, reads]);
  if (uploaded) published.push([uploaded]);
  recordAll(model, scope, published.flat());
  model.delete(scope, c, doomed);
  await expectStoreAgrees(service, model, scope, "after maintenance ran during writes");
  await expectArtifactError(
    () => service.get(scope, c, { version: doomed }),
    "not_found",
    "the version deleted while maintenance ran",
  );
  await maintain();
  await expectStoreAgrees(service, model, scope, "after maintenance once more");
  // A restarted instance knows of the deleted versions only what the storage kept.
  const restarted = hooks.reopen ? await reopen() : service;
  if (hooks.reopen) await expectStoreAgrees(restarted, model, scope, "after a restart");
  await overAHoleThenRead({ reader: restarted, writer: restarted, maintain }, model, scope);
  if (hooks.another)
    await fresh((holder) => withHandles(holder, 1, overAHoleSeenByAnother(holder)));
}

/**
 * The puts over a hole made through one live instance, then maintenance, and every view read
 * through another that read the store before them: what that reader kept from its first
 * read (the top of a name it probes upward from) must not hide the versions above the hole.
 * The instance that puts knows its own versions, so only another one can be caught out.
 */
function overAHoleSeenByAnother(holder: ServiceHolder) {
  return async ([reader, writer]: readonly ArtifactService[]) => {
    const { maintain } = holder.subject;
    if (!reader || !writer || !maintain) throw new TypeError("two handles and maintain needed");
    const scope = freshScope("maintenance-another");
    const model = new ReferenceModel();
    await expectStoreAgrees(reader, model, scope, "through the reader, before any put");
    await overAHoleThenRead({ reader, writer, maintain }, model, scope);
  };
}

/** putOverAHoleThenMaintain through `writer`, then every view read through `reader`. */
async function overAHoleThenRead(
  handles: { reader: ArtifactService; writer: ArtifactService; maintain(): Promise<void> },
  model: ReferenceModel,
  scope: Scope,
) {
  const { reader, writer, maintain } = handles;
  await putOverAHoleThenMaintain({ service: writer, maintain }, model, scope);
  const through = reader === writer ? "" : ", read through an instance that read before them";
  await expectStoreAgrees(
    reader,
    model,
    scope,
    `after puts over a version deleted below the top, then maintenance${through}`,
  );
}

/**
 * Random model sequences with the subject's maintenance run between commands (and restarts
 * when the subject has them) match the reference model in every reply.
 */
async function sequencesWithMaintenance({ hooks, fresh, property, options }: LawContext) {
  await property(
    [artifactCommands({ reopen: hooks.reopen, maintain: true }, options.replayPath)],
    (commands) =>
      fresh((holder) =>
        fc.asyncModelRun(() => ({ model: new ReferenceModel(), real: holder }), commands),
      ),
    { scale: 1 / 2, min: 5 },
  );
}

export const maintenanceLaws = [
  check(
    "maintenance",
    "maintenance run while puts, keyed puts, uploads, deletes and reads are in flight changes nothing published: readers never miss a version, deleted versions stay deleted, keys stay bound, and later puts (after a restart too) get versions above every one handed out and are read as latest",
    maintenanceDuringWrites,
    { needs: ["maintain"] },
  ),
  check(
    "maintenance",
    "random model sequences with maintenance between commands match the reference model in every field",
    sequencesWithMaintenance,
    { needs: ["maintain"] },
  ),
];
