import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { corruptArtifact, type Scope, scopeDigest, validateScope } from "@artifact-kit/core";
import type { Shard } from "./shard.js";

// What a durable router needs for scope discovery: the scope behind each shard directory,
// whose name is only a digest. Each label `root/shard-scopes/<id>.json` is written once,
// durably, before the shard's worker is first opened, so every shard that can hold data has
// one. Shards made before labels existed get theirs the next time they are opened.

const LABELS_DIR = "shard-scopes";
const LABEL_PATTERN = /^([0-9a-f]{64})\.json$/;

export class ShardLabels {
  readonly #dir: string;
  readonly #fileMode: number;
  readonly #dirMode: number;
  /** Labels known to exist, with their scope: labels never change once written. */
  readonly #known = new Map<string, Scope>();

  constructor(root: string, modes: { fileMode: number; dirMode: number }) {
    this.#dir = join(root, LABELS_DIR);
    this.#fileMode = modes.fileMode;
    this.#dirMode = modes.dirMode;
  }

  /** Makes sure the shard's label exists: written whole (temp, fsync, rename, fsync dir). */
  async record(shard: Shard): Promise<void> {
    const { scope, id } = shard;
    if (scope === undefined || this.#known.has(id)) return;
    await mkdir(this.#dir, { recursive: true, mode: this.#dirMode });
    const temp = join(this.#dir, `${randomUUID()}.tmp`);
    try {
      await writeDurably(temp, JSON.stringify({ scope }), this.#fileMode);
      await rename(temp, join(this.#dir, `${id}.json`));
    } finally {
      await rm(temp, { force: true });
    }
    await syncDirectory(this.#dir);
    this.#known.set(id, scope);
  }

  /** The scope of every labelled shard. */
  async scopes(): Promise<Scope[]> {
    let entries: string[];
    try {
      entries = await readdir(this.#dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const scopes: Scope[] = [];
    for (const entry of entries) {
      const id = LABEL_PATTERN.exec(entry)?.[1];
      if (id !== undefined) scopes.push(this.#known.get(id) ?? (await this.#read(id)));
    }
    return scopes;
  }

  async #read(id: string): Promise<Scope> {
    const detail = { kind: "shard label" };
    let scope: Scope;
    try {
      const text = await readFile(join(this.#dir, `${id}.json`), "utf8");
      scope = validateScope((JSON.parse(text) as { scope?: unknown }).scope);
    } catch (error) {
      throw corruptArtifact("a shard label holds no valid scope", detail, error);
    }
    if (scopeDigest(scope) !== id)
      throw corruptArtifact("a shard label names another scope", detail);
    this.#known.set(id, scope);
    return scope;
  }
}

async function writeDurably(path: string, text: string, mode: number): Promise<void> {
  const handle = await open(path, "wx", mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
