import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** What one put of a worker process reported: its version, or the error code it failed with. */
export interface PutOutcome {
  readonly version?: number;
  readonly code?: string;
  readonly message?: string;
}

/**
 * Starts `processes` OS processes of `worker` (`node <worker> <opener> <endpoint> <bucket>
 * <name> <puts>`, see put-worker.ts), each putting `puts` artifacts to one name at once and printing one JSON line per
 * settled put; waits for every one of them to exit, and returns all reported outcomes.
 */
export async function putFromProcesses(
  worker: string,
  target: { opener: string; endpoint: string; bucket: string; name: string },
  processes: number,
  puts: number,
): Promise<PutOutcome[]> {
  const { opener, endpoint, bucket, name } = target;
  const args = [worker, opener, endpoint, bucket, name, String(puts)];
  const run = () => promisify(execFile)(process.execPath, args);
  const outputs = await Promise.all(Array.from({ length: processes }, run));
  return outputs.flatMap(({ stdout }) =>
    stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as PutOutcome),
  );
}
