import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const worker = fileURLToPath(new URL("./put-worker.mjs", import.meta.url));

/** What one put of a worker process reported: its version, or the error code it failed with. */
export interface PutOutcome {
  readonly version?: number;
  readonly code?: string;
  readonly message?: string;
}

/**
 * Starts `processes` OS processes that each put `puts` artifacts to one name at once (see
 * put-worker.mjs), waits for every one of them to exit, and returns all reported outcomes.
 */
export async function putFromProcesses(
  endpoint: string,
  bucket: string,
  name: string,
  processes: number,
  puts: number,
): Promise<PutOutcome[]> {
  const run = () =>
    promisify(execFile)(process.execPath, [worker, endpoint, bucket, name, String(puts)]);
  const outputs = await Promise.all(Array.from({ length: processes }, run));
  return outputs.flatMap(({ stdout }) =>
    stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as PutOutcome),
  );
}
