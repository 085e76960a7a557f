import { compareUtf8, indexAfter } from "@artifact-kit/core";

const identity = (name: string) => name;

/** Inserts `name` into a UTF-8-ordered array unless present, in O(log n) search. */
export function insertName(sorted: string[], name: string): void {
  const index = indexAfter(sorted, name, identity, compareUtf8);
  if (sorted[index - 1] !== name) sorted.splice(index, 0, name);
}

export function removeName(sorted: string[], name: string): void {
  const index = indexAfter(sorted, name, identity, compareUtf8) - 1;
  if (sorted[index] === name) sorted.splice(index, 1);
}
