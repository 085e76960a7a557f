import { scopeKey } from "../../scope.js";
import type { Scope } from "../../types.js";
import { check, type LawContext } from "../check.js";
import { expectEqual } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";

// A store that keys scopes by joining their ids with a separator (whatever it is) maps two
// different scopes to one key. These scopes join to the same string under each separator.

/** Separators an adapter might join ids with; NUL is excluded since ids may not hold it. */
const SEPARATORS = ["/", ":", "|", "\\", ".", "\u0001", "%2F", "::"];

/** Scopes whose ids join to the same text under `sep`, across and within kinds. */
function collidingScopes(sep: string): Scope[] {
  return [
    { kind: "app", app: `a${sep}u${sep}s` },
    { kind: "user", app: `a${sep}u`, user: "s" },
    { kind: "user", app: "a", user: `u${sep}s` },
    { kind: "session", app: "a", user: "u", session: `s${sep}x` },
    { kind: "session", app: `a${sep}u`, user: "s", session: "x" },
    { kind: "session", app: "a", user: `u${sep}s`, session: "x" },
    { kind: "session", app: `a${sep}u${sep}s`, user: "x", session: "y" },
    { kind: "user", app: "a", user: `u${sep}s${sep}x` },
  ];
}

/** Every scope, each with a name that a path join would also confuse with another scope. */
function entries() {
  const scopes = new Map<string, Scope>();
  for (const sep of SEPARATORS) {
    for (const scope of collidingScopes(sep)) scopes.set(scopeKey(scope), scope);
  }
  scopes.set(scopeKey({ kind: "user", app: "a", user: "u" }), {
    kind: "user",
    app: "a",
    user: "u",
  });
  scopes.set(scopeKey({ kind: "app", app: "a" }), { kind: "app", app: "a" });
  return [...scopes.values()].map((scope, i) => ({
    scope,
    id: i,
    names: i % 2 === 0 ? ["n"] : ["n", "s/x/n"],
  }));
}

/**
 * Scopes whose ids join to the same string under any separator (and names a path join
 * would confuse with another scope's) are different artifacts, and stay so after deletes.
 */
async function joinedIdsStayApart({ service }: LawContext) {
  const all = entries();
  const payload = (id: number, name: string) => new TextEncoder().encode(`${id}:${name}`);
  for (const { scope, id, names } of all) {
    for (const name of names) await service.put(scope, name, payload(id, name));
  }
  const expectIntact = async (live: typeof all, when: string) => {
    for (const { scope, id, names } of live) {
      const what = `${JSON.stringify(scope)} ${when}`;
      expectEqual(await readAllNames(service, scope), names, `${what}: listNames`);
      for (const name of names) {
        const { data } = await service.get(scope, name);
        expectEqual(
          new TextDecoder().decode(data),
          `${id}:${name}`,
          `${what}: the bytes of "${name}"`,
        );
        expectEqual(
          (await readAllVersions(service, scope, name)).length,
          1,
          `${what}: versions of "${name}"`,
        );
      }
      expectEqual((await service.list(scope)).length, names.length, `${what}: list`);
    }
  };
  await expectIntact(all, "with every colliding scope written");
  const [gone, kept] = [all.filter((_, i) => i % 3 === 0), all.filter((_, i) => i % 3 !== 0)];
  for (const { scope, names } of gone) {
    for (const name of names) await service.delete(scope, name, "all");
  }
  await expectIntact(kept, "after deleting in a third of the other scopes");
  for (const { scope } of gone) {
    expectEqual(await readAllNames(service, scope), [], `${JSON.stringify(scope)} after delete`);
  }
}

export const scopeLaws = [
  check(
    "scopes",
    'scopes whose ids join to one string under any separator ({app:"a/u",user:"s"} vs {app:"a",user:"u/s"}, ":" and others) are different artifacts',
    joinedIdsStayApart,
  ),
];
