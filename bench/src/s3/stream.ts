// Issue 21: streamed transfer through @artifact-kit/s3, on the same S3-compatible server:
//  1. Time: a 256 MiB streamed upload (openUpload, 8 MiB parts) against a raw multipart upload
//     of the same bytes in the same parts (CreateMultipartUpload, UploadPart, Complete).
//     Target: ours/raw time <= 2.0, since publication copies the staged data once more,
//     server-side (UploadPartCopy) into the version's key.
//  2. RSS: a 1 GiB upload, and its download, must each grow the process's resident set by
//     less than 64 MiB (measured apart, from a settled baseline, as stream.bench does).
// Run: node --expose-gc bench/dist/s3/stream.js --s3 <endpoint> [--throughput-mib 256]
//        [--rss-mib 1024] [--rounds 3] [--skip-time]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import type { Scope } from "@artifact-kit/core";
import { S3ArtifactService } from "@artifact-kit/s3";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { positiveInteger } from "../args.js";
import { benchClient, emptyBucket } from "./client.js";

const MiB = 1024 * 1024;
const PART = 8 * MiB;
const RSS_BOUND = 64 * MiB;
const TIME_RATIO_BOUND = 2.0;
const scope: Scope = { kind: "app", app: "s3-stream-bench" };
const BUCKET = "ak-bench-stream";

/** `size` bytes in 1 MiB chunks, each differing, generated as they are consumed. */
function* chunks(size: number): Generator<Uint8Array> {
  const block = new Uint8Array(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 131 + (i >>> 8)) & 0xff;
  for (let sent = 0; sent < size; sent += MiB) {
    const piece = block.slice(0, Math.min(MiB, size - sent));
    piece[0] = (sent / MiB) & 0xff;
    yield piece;
  }
}

async function oursUpload(service: S3ArtifactService, size: number): Promise<void> {
  const upload = await service.openUpload(scope, `big-${randomUUID()}`);
  for (const chunk of chunks(size)) await upload.write(chunk);
  const meta = await upload.finish();
  if (meta.size !== size) throw new Error(`uploaded ${meta.size} bytes, not ${size}`);
}

async function rawUpload(client: S3Client, size: number): Promise<void> {
  const Key = `raw-${randomUUID()}`;
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key }));
  const parts: { ETag: string; PartNumber: number }[] = [];
  let part = new Uint8Array(PART);
  let filled = 0;
  const flush = async () => {
    const PartNumber = parts.length + 1;
    const body = part.subarray(0, filled);
    const { ETag } = await client.send(
      new UploadPartCommand({ Bucket: BUCKET, Key, UploadId, PartNumber, Body: body }),
    );
    parts.push({ ETag: ETag ?? "", PartNumber });
    part = new Uint8Array(PART);
    filled = 0;
  };
  for (const chunk of chunks(size)) {
    part.set(chunk, filled);
    filled += chunk.byteLength;
    if (filled === PART) await flush();
  }
  if (filled > 0) await flush();
  await client.send(
    new CompleteMultipartUploadCommand({
      Bucket: BUCKET,
      Key,
      UploadId,
      MultipartUpload: { Parts: parts },
    }),
  );
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

async function measureTime(client: S3Client, size: number, rounds: number) {
  const service = new S3ArtifactService({ client, bucket: BUCKET, partBytes: PART });
  const ours: number[] = [];
  const raw: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so neither always runs on a fresher server.
    const pair = [
      async () => ours.push(await timed(() => oursUpload(service, size))),
      async () => raw.push(await timed(() => rawUpload(client, size))),
    ];
    for (const run of round % 2 ? pair.reverse() : pair) await run();
    await emptyBucket(client, BUCKET);
    console.error(`time round ${round + 1}/${rounds} done`);
  }
  const ratio = median(ours) / median(raw);
  const mib = size / MiB;
  console.log(`\n## s3 streamed upload, ${mib} MiB (median of ${rounds})\n`);
  console.log("| ours (openUpload) | raw multipart upload | ours/raw time | target | result |");
  console.log("| --- | --- | --- | --- | --- |");
  console.log(
    `| ${(median(ours) / 1000).toFixed(2)} s (${(mib / (median(ours) / 1000)).toFixed(0)} MiB/s) | ${(median(raw) / 1000).toFixed(2)} s (${(mib / (median(raw) / 1000)).toFixed(0)} MiB/s) | ${ratio.toFixed(2)} | <= ${TIME_RATIO_BOUND} | ${ratio <= TIME_RATIO_BOUND ? "PASS" : "MISS"} |`,
  );
}

/** Runs `work` while sampling RSS; returns the peak growth over the settled baseline. */
async function rssGrowth(work: () => Promise<void>): Promise<number> {
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage().rss) - baseline;
}

/** Upload and download measured apart, each from a settled baseline, as stream.bench does. */
async function measureRss(client: S3Client, size: number) {
  const service = new S3ArtifactService({ client, bucket: BUCKET, partBytes: PART });
  const name = "rss";
  const up = await rssGrowth(async () => {
    const upload = await service.openUpload(scope, name);
    for (const chunk of chunks(size)) await upload.write(chunk);
    await upload.finish();
  });
  console.error("rss: uploaded");
  const down = await rssGrowth(async () => {
    const source = await service.openDownload(scope, name);
    let read = 0;
    for (let piece = await source.read(); piece; piece = await source.read()) {
      read += piece.byteLength;
    }
    if (read !== size) throw new Error(`downloaded ${read} bytes, not ${size}`);
  });
  await emptyBucket(client, BUCKET);
  console.log(`\n## s3 RSS growth, ${size / MiB} MiB\n`);
  console.log("| transfer | RSS growth | bound | result |");
  console.log("| --- | --- | --- | --- |");
  for (const [label, growth] of [
    ["upload", up],
    ["download", down],
  ] as const) {
    const verdict = growth < RSS_BOUND ? "PASS" : "MISS";
    console.log(
      `| ${label} | ${(growth / MiB).toFixed(1)} MiB | < ${RSS_BOUND / MiB} MiB | ${verdict} |`,
    );
  }
}

const { values } = parseArgs({
  options: {
    s3: { type: "string" },
    "throughput-mib": { type: "string", default: "256" },
    "rss-mib": { type: "string", default: "1024" },
    rounds: { type: "string", default: "3" },
    "skip-time": { type: "boolean", default: false },
  },
});
if (!values.s3) throw new Error("pass --s3 <endpoint> of an S3-compatible server (start-moto.sh)");
const client = benchClient(values.s3);
await emptyBucket(client, BUCKET);
await measureRss(client, positiveInteger(values["rss-mib"], "--rss-mib") * MiB);
if (!values["skip-time"]) {
  await measureTime(
    client,
    positiveInteger(values["throughput-mib"], "--throughput-mib") * MiB,
    positiveInteger(values.rounds, "--rounds"),
  );
}
