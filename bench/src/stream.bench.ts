// Issue 6: bounded streaming transfer. Two measurements, run as one program:
//  1. RSS: a 1 GiB upload and download through fs (and gcs, given an emulator) must grow the
//     process's resident set by less than 64 MiB.
//  2. Throughput: 256 MiB up and down through fs against the floor of a raw file stream copy
//     plus SHA-256 in the same run (issue 35's targets: upload at least 0.8x, download 0.9x,
//     by time; the CPU ratio is printed beside); gcs beside a raw
//     createWriteStream / createReadStream of the client.
// Run: node --expose-gc bench/dist/stream.bench.js [--gcs <emulator endpoint>]
//        [--throughput-mib 256] [--rounds 3] [--skip-rss]
import { execFileSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import type { ArtifactService, Scope } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import { GcsArtifactService } from "@artifact-kit/gcs";
import { openDownload, openUpload } from "@artifact-kit/stream";
import { Storage } from "@google-cloud/storage";
import { positiveInteger } from "./args.js";
import { median } from "./paired.js";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const RSS_BOUND = 64 * MiB;
const scope: Scope = { kind: "app", app: "stream-bench" };
/** The same file reads for the floor and for ours: 1 MiB at a time. */
const FILE_READS = { highWaterMark: MiB };

/** `size` bytes of generated data, 1 MiB at a time, never held whole. */
function generated(size: number): Readable {
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 131 + (i >>> 8)) & 0xff;
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const piece = Buffer.from(block.subarray(0, Math.min(MiB, size - sent)));
      piece[0] = sent / MiB; // every block differs
      sent += piece.length;
      this.push(piece);
    },
  });
}

const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

const hashing = () => {
  const hash = createHash("sha256");
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      hash.digest();
      done();
    },
  });
};

/** Where the bench is, on stderr, so that stdout holds only the figures. */
const progress = (step: string) => process.stderr.write(`... ${step}\n`);

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** Runs `work` while sampling RSS; returns the peak growth over the settled baseline. */
async function rssGrowth(work: () => Promise<void>): Promise<number> {
  gc();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage.rss()) - baseline;
}

async function seconds(work: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const rate = (bytes: number, s: number) => `${(bytes / MiB / s).toFixed(0)} MiB/s`;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

const upload = (service: ArtifactService, name: string, source: () => Readable) => async () => {
  const sink = openUpload(service, scope, name);
  await pipeline(source(), sink.toNodeWritable());
  await sink.meta;
};
const download = (service: ArtifactService, name: string, sink: () => Writable) => async () => {
  await pipeline(openDownload(service, scope, name), sink());
};

async function measureRss(label: string, service: ArtifactService): Promise<string[]> {
  const name = `rss-${randomUUID()}`;
  progress(`${label}: 1 GiB upload and download, sampling RSS`);
  const up = await rssGrowth(upload(service, name, () => generated(GiB)));
  const down = await rssGrowth(download(service, name, discard));
  const verdict = (growth: number) => (growth < RSS_BOUND ? "ok" : "OVER 64 MiB");
  return [
    `${label}: 1 GiB upload grew RSS by ${mib(up)} (${verdict(up)})`,
    `${label}: 1 GiB download grew RSS by ${mib(down)} (${verdict(down)})`,
  ];
}

interface PairedThroughput {
  /** Median seconds of each side. */
  readonly floor: number;
  readonly ours: number;
  /** Median of the per-round ratios floor time / our time: our throughput against the floor's. */
  readonly ratio: number;
  /**
   * Median of the per-round ratios of the process's CPU time (user and system, every thread)
   * ours / floor: what ours costs per byte against the floor, which a shared machine moves far
   * less than the wall clock.
   */
  readonly cpu: number;
}

/** One side of a paired figure: the timed work, and what is done untimed before each run. */
interface PairedSide {
  readonly run: () => Promise<void>;
  readonly before?: () => Promise<void>;
}

/**
 * `rounds` rounds, each timing both sides back to back, the order alternating between rounds,
 * so that a drift of the machine (or of the host's disk) hits both halves of a round; the
 * figure is the median of the per-round ratios. Before each timing every dirty page is
 * written back (`sync`, untimed), so that no side's fsync pays for the writeback of what the
 * other wrote; with `warm`, each side first runs once untimed, so that both read their file
 * from the page cache rather than one from the cache and the other from the disk.
 */
async function pairedRounds(
  label: string,
  rounds: number,
  sides: { floor: PairedSide; ours: PairedSide },
  warm: boolean,
): Promise<PairedThroughput> {
  const time = async (side: "floor" | "ours", round: number) => {
    progress(`${label}: round ${round + 1}/${rounds}, ${side}`);
    if (warm) await sides[side].run();
    await sides[side].before?.();
    gc();
    execFileSync("sync");
    const cpuBefore = process.cpuUsage();
    const wall = await seconds(sides[side].run);
    const cpu = process.cpuUsage(cpuBefore);
    return { wall, cpu: cpu.user + cpu.system };
  };
  const floor: number[] = [];
  const ours: number[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["floor", "ours"] as const) : (["ours", "floor"] as const);
    const times = { floor: { wall: 0, cpu: 0 }, ours: { wall: 0, cpu: 0 } };
    for (const side of order) times[side] = await time(side, round);
    floor.push(times.floor.wall);
    ours.push(times.ours.wall);
    ratios.push(times.floor.wall / times.ours.wall);
    cpuRatios.push(times.ours.cpu / times.floor.cpu);
  }
  return {
    floor: median(floor),
    ours: median(ours),
    ratio: median(ratios),
    cpu: median(cpuRatios),
  };
}

async function fsFigures(dir: string, size: number, options: FigureOptions): Promise<string[]> {
  const service = await FsArtifactService.open({ root: dir, maxArtifactBytes: 2 * GiB });
  const lines = options.rss ? await measureRss("fs", service) : [];
  const file = join(dir, "input.bin");
  await pipeline(generated(size), createWriteStream(file));
  const floorTarget = join(dir, "floor.bin");
  // Each upload side writes a new file a round and removes its previous one first, untimed:
  // a file system's fresh page-cache pages can cost several times the ones a removal just
  // freed (on a VM whose host takes back freed memory, every first touch faults to the
  // host), so the floor, which used to truncate its own file in place, and ours, which kept
  // every version it uploaded, wrote into different memory.
  let version = 0;
  const name = () => `throughput-${version}`;
  const up = await pairedRounds(
    `fs ${mib(size)} upload`,
    options.rounds,
    {
      // What any durable write pays at least: the copy, the digest, and one fsync of the file
      // and of its directory at the end (ours also writes block digests and a record).
      floor: {
        before: () => rm(floorTarget, { force: true }),
        run: async () => {
          await pipeline(
            createReadStream(file, FILE_READS),
            hashing(),
            createWriteStream(floorTarget),
          );
          await syncPath(floorTarget);
          await syncPath(dir);
        },
      },
      ours: {
        before: async () => {
          if (version > 0) await service.delete(scope, name(), "all");
          version += 1;
        },
        run: () => upload(service, name(), () => createReadStream(file, FILE_READS))(),
      },
    },
    false,
  );
  const down = await pairedRounds(
    `fs ${mib(size)} download`,
    options.rounds,
    {
      floor: {
        run: () =>
          pipeline(
            createReadStream(floorTarget, FILE_READS),
            hashing(),
            createWriteStream(join(dir, "floor-out.bin")),
          ),
      },
      ours: {
        run: () => download(service, name(), () => createWriteStream(join(dir, "out.bin")))(),
      },
    },
    true,
  );
  await service.close();
  const line = (
    direction: "upload" | "download",
    { ours, floor, ratio, cpu }: PairedThroughput,
    target: number,
  ) => {
    const floorLabel =
      direction === "upload" ? "file copy + SHA-256 + one fsync" : "file copy + SHA-256";
    return `fs ${mib(size)} ${direction}: ours ${rate(size, ours)}, floor (${floorLabel}) ${rate(size, floor)}, ratio ${ratio.toFixed(2)}x, CPU ours/floor ${cpu.toFixed(2)}x (medians of ${options.rounds} paired rounds; target >= ${target}x)`;
  };
  // Issue 35's targets.
  lines.push(line("upload", up, 0.8), line("download", down, 0.9));
  return lines;
}

async function gcsFigures(
  endpoint: string,
  size: number,
  options: FigureOptions,
): Promise<string[]> {
  const storage = new Storage({ apiEndpoint: endpoint, projectId: "stream-bench" });
  const [bucket] = await storage.createBucket(`stream-bench-${randomUUID()}`);
  const service = new GcsArtifactService({ bucket, maxArtifactBytes: 2 * GiB });
  const lines = options.rss ? await measureRss("gcs (emulator)", service) : [];
  progress(`gcs (emulator) ${mib(size)}: raw and ours, up and down`);
  const rawUp = await seconds(() =>
    pipeline(generated(size), bucket.file("raw.bin").createWriteStream({ resumable: true })),
  );
  const oursUp = await seconds(upload(service, "throughput", () => generated(size)));
  const rawDown = await seconds(() =>
    pipeline(bucket.file("raw.bin").createReadStream(), discard()),
  );
  const oursDown = await seconds(download(service, "throughput", discard));
  await service.close();
  lines.push(
    `gcs (emulator) ${mib(size)} upload:   ours ${rate(size, oursUp)}, raw createWriteStream ${rate(size, rawUp)}`,
    `gcs (emulator) ${mib(size)} download: ours ${rate(size, oursDown)}, raw createReadStream ${rate(size, rawDown)}`,
  );
  return lines;
}

interface FigureOptions {
  /** Measure the 1 GiB RSS growth (the slow part) before the throughput. */
  readonly rss: boolean;
  /** Timings per side of each fs throughput figure; the median is reported. */
  readonly rounds: number;
}

const { values } = parseArgs({
  options: {
    gcs: { type: "string" },
    "throughput-mib": { type: "string", default: "256" },
    rounds: { type: "string", default: "3" },
    "skip-rss": { type: "boolean", default: false },
  },
});
const size = positiveInteger(values["throughput-mib"], "--throughput-mib") * MiB;
const options: FigureOptions = {
  rss: !values["skip-rss"],
  rounds: positiveInteger(values.rounds, "--rounds"),
};
const dir = await mkdtemp(join(tmpdir(), "artifact-kit-stream-bench-"));
try {
  for (const line of await fsFigures(dir, size, options)) console.log(line);
} finally {
  await rm(dir, { recursive: true, force: true });
}
if (values.gcs) for (const line of await gcsFigures(values.gcs, size, options)) console.log(line);
else console.log("gcs: skipped (pass --gcs <emulator endpoint>)");

/** fsync of a file or a directory, by path. */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
