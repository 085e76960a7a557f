import { open } from "node:fs/promises";

/**
 * Flips the byte at `offset` of a file in place, as disk corruption would: the body of a
 * subject's `corrupt` hook for an adapter that keeps each version's data in a file.
 */
export async function flipFileByte(path: string, offset: number): Promise<void> {
  const handle = await open(path, "r+");
  try {
    const byte = Buffer.alloc(1);
    const { bytesRead } = await handle.read(byte, 0, 1, offset);
    if (bytesRead !== 1) throw new RangeError(`${path} has no byte at ${offset}`);
    byte[0] = (byte[0] ?? 0) ^ 0xff;
    await handle.write(byte, 0, 1, offset);
  } finally {
    await handle.close();
  }
}
