/** A command-line flag's value as a positive integer, or a clear error naming the flag. */
export function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${flag} takes a positive integer`);
  return value;
}
