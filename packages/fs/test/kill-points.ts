import { existsSync, type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import type { Child } from "./processes.js";

// Moments to SIGKILL a child at, each an event the parent observes, never a timer: a line the
// child writes, or a store file appearing or disappearing (inotify). A file event puts the
// kill inside the step that follows it, where a line on a pipe arrives too late to land: a
// version's metadata disappearing is a delete between unpublishing and removing the payload;
// a new key binding appearing is a keyed put between binding and publishing.

export type KillPoint =
  | { readonly kind: "line"; readonly matches: (line: string) => boolean }
  | {
      readonly kind: "file";
      readonly dirs: readonly string[];
      /** Which file names count. */
      readonly names: RegExp;
      /** Whether the file must be there after the event (it appeared) or not (it went). */
      readonly appears: boolean;
      /** Which of the files that appeared count (all by default). */
      readonly accepts?: (path: string) => boolean;
      /** Events that count to let pass first. */
      readonly skip: number;
    };

/** Resolves once `point` happens in `child`; rejects if the child exits first. */
export function reached(child: Child, point: KillPoint): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop =
      point.kind === "line" ? onLine(child, point.matches, resolve) : onFile(point, resolve);
    child.done.then(() => {
      stop();
      reject(new Error("the child exited before the kill point"));
    }, reject);
  });
}

function onLine(child: Child, matches: (line: string) => boolean, then: () => void): () => void {
  let partial = "";
  const stdout = child.process.stdout;
  const onData = (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    if (lines.some(matches)) {
      stop();
      then();
    }
  };
  const stop = () => stdout?.off("data", onData);
  stdout?.on("data", onData);
  return stop;
}

/** After `skip` of them, a file event of `point` in one of its dirs (which must all exist). */
function onFile(point: Extract<KillPoint, { kind: "file" }>, then: () => void): () => void {
  let left = point.skip;
  const watchers: FSWatcher[] = [];
  const stop = () => {
    for (const watcher of watchers) watcher.close();
  };
  for (const dir of point.dirs) {
    const watcher = watch(dir, (_event, file) => {
      if (typeof file !== "string" || !point.names.test(file)) return;
      const path = join(dir, file);
      if (existsSync(path) !== point.appears) return;
      if (point.appears && point.accepts && !point.accepts(path)) return;
      if (left-- > 0) return;
      stop();
      then();
    });
    watchers.push(watcher);
  }
  return stop;
}
