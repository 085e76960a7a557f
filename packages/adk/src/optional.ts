/**
 * `{ [key]: value }` when the value is present, else `{}`: spreads an optional field without
 * ever writing `undefined` into it (exactOptionalPropertyTypes).
 */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}
