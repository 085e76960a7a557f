import type { ArtifactService } from "@artifact-kit/core";
import { BENCH_SCOPE } from "../kit-store.js";
import type { BenchBucket } from "../object-store/bucket.js";
import { CountingProxy } from "../object-store/counting-proxy.js";
import { RequestTally } from "../object-store/request-tally.js";
import { fillVersions, type GrowthRow, growthSuite } from "./growth.js";

/** A filled store: the adapter over a bucket, and the same bucket seen raw. */
interface BucketSubject {
  readonly service: ArtifactService;
  readonly raw: BenchBucket;
  /** The name of the newest published version object, once looked up. */
  newest?: string | undefined;
  close(): Promise<void>;
}

/** Published objects are `.../n/<name key>/<version, zero-padded>`: the greatest is the newest. */
async function newestPublished(subject: BucketSubject): Promise<string> {
  subject.newest ??= (await subject.raw.names())
    .filter((name) => /\/n\/[^/]+\/[0-9]{16}$/.test(name))
    .sort()
    .at(-1);
  if (subject.newest === undefined) throw new Error("the filled bucket holds no published version");
  return subject.newest;
}

/**
 * Issue 17 for the object stores: get and head of latest with `few` and with `many` versions
 * of one name, beside three floors measured in the same run on the same buckets: the cheapest
 * listing (one request returning one object), a listing of one object under the prefix that
 * holds all the name's versions, and a raw GET of the newest object. The adapter
 * must stay at a constant number of requests; the emulators' listings cost what they cost, and
 * the floor rows show how much of the growth is theirs. Requests per operation are counted
 * through a proxy and printed after the table.
 */
export async function objectStoreScaleSuite(options: {
  title: string;
  endpoint: string;
  few: number;
  many: number;
  /** The bucket `name`, every request sent through the proxy at `via`. */
  bucket: (via: string, name: string) => BenchBucket;
}) {
  let buckets = 0;
  const proxy = await CountingProxy.start(options.endpoint);
  const tally = new RequestTally(proxy);
  const fill =
    (count: number) =>
    (subject: BucketSubject): Promise<void> =>
      fillVersions(subject.service, "doc", count, 16);
  const small = fill(options.few);
  const large = fill(options.many);
  const row = (
    label: string,
    probe: (subject: BucketSubject) => Promise<unknown>,
    bound?: number,
  ): GrowthRow<BucketSubject> => ({
    label,
    small,
    large,
    probe,
    ...(bound === undefined ? {} : { bound }),
  });
  const rows = [
    row("get latest", (subject) => subject.service.get(BENCH_SCOPE, "doc"), 1.5),
    row("head latest", (subject) => subject.service.head(BENCH_SCOPE, "doc"), 1.5),
    row("floor: one listing that returns one object", async (subject) =>
      subject.raw.list(await newestPublished(subject), 1),
    ),
    // What any code that finds a name's newest version in one request pays: a listing of one
    // object under a prefix that holds every version (the emulators scan the whole prefix).
    row("floor: one listing of one object under the name's versions", async (subject) =>
      subject.raw.list((await newestPublished(subject)).replace(/[0-9]{16}$/, ""), 1),
    ),
    row("floor: raw GET of the newest object", async (subject) =>
      subject.raw.get(await newestPublished(subject)),
    ),
  ];
  return growthSuite<BucketSubject>({
    title: options.title,
    sizes: { small: `${options.few} versions`, large: `${options.many} versions` },
    open: async () => {
      const raw = options.bucket(proxy.endpoint, `scale-${process.pid}-${buckets++}`);
      await raw.empty();
      const service = raw.service();
      return {
        service,
        raw,
        close: async () => {
          await service.close();
          await raw.close?.();
        },
      };
    },
    rows,
    count: (label, column, workload) => tally.counted(label, column, workload),
    appendix: () =>
      tally.table(
        rows.map((counted) => counted.label),
        [
          { id: "small", label: `${options.few} versions` },
          { id: "large", label: `${options.many} versions` },
        ],
      ),
    close: () => proxy.close(),
  });
}
