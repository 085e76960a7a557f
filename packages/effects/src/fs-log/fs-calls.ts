import { open } from "node:fs/promises";

/** The `code` of a file-system error (ENOENT, EEXIST, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** Makes a directory's entries durable: a new or removed name is lost with the power until then. */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
