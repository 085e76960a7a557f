import fc from "fast-check";
import { compareUtf8 } from "../../order.js";
import { freshScope, nameArb } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectEqual } from "../expect.js";
import { readAllNames } from "../observe.js";

// A name prefix narrows a listing and changes nothing else: the names with it, in the same
// UTF-8 order, with the same exclusive cursors and page sizes.

/** The first `length` code points of `name` (at least one): a prefix some name has. */
function prefixOf(name: string, length: number): string {
  const codePoints = [...name];
  return codePoints.slice(0, 1 + (length % codePoints.length)).join("");
}

/**
 * Names of the characters a prefix turned into a pattern would misread: SQL LIKE ("_", "%"),
 * globs ("*", "?", "[", "]"), regular expressions (".", "^", "$", "(", "+", "|", "\\") and
 * their escapes, so that a prefix taken from such a name is a pattern's worst case.
 */
const patternNameArb = fc
  .array(
    fc.constantFrom(
      "a",
      "b",
      "_",
      "%",
      "*",
      "?",
      "[",
      "]",
      ".",
      "^",
      "$",
      "(",
      "+",
      "|",
      "\\",
      "!",
      "/a",
    ),
    {
      minLength: 1,
      maxLength: 5,
    },
  )
  .map((parts) => parts.join(""))
  .filter(
    (name) =>
      !name.startsWith("/") && !name.split("/").some((s) => s === "" || s === "." || s === ".."),
  );

/** listNames with a prefix equals the full listing filtered by the prefix, under every cursor. */
async function prefixListingIsTheFilteredListing({ service, property }: LawContext) {
  await property(
    [
      fc.oneof(
        fc.uniqueArray(nameArb, { minLength: 1, maxLength: 12 }),
        fc.uniqueArray(patternNameArb, { minLength: 1, maxLength: 12 }),
      ),
      fc.nat(),
      fc.nat(),
      fc.integer({ min: 1, max: 4 }),
    ],
    async (names, which, length, limit) => {
      const scope = freshScope("prefix");
      for (const name of names) await service.put(scope, name, new Uint8Array([1]));
      const all = [...names].sort(compareUtf8);
      const taken = prefixOf(names[which % names.length] as string, length);
      // One prefix some names have, and one no name has (nothing sorts above U+10FFFF).
      for (const prefix of [taken, `${taken}\u{10FFFF}`]) {
        const expected = all.filter((name) => name.startsWith(prefix));
        expectEqual(
          await readAllNames(service, scope, limit, prefix),
          expected,
          `every page of listNames with prefix ${JSON.stringify(prefix)}, limit ${limit}`,
        );
        // Every cursor: each name (with or without the prefix), and one before them all.
        for (const cursor of ["", ...all]) {
          const page = await service.listNames(scope, {
            prefix,
            limit,
            ...(cursor === "" ? {} : { cursor }),
          });
          const after = expected.filter((name) => cursor === "" || compareUtf8(name, cursor) > 0);
          expectEqual(
            { items: [...page.items], nextCursor: page.nextCursor },
            {
              items: after.slice(0, limit),
              nextCursor: after.length > limit ? after[limit - 1] : undefined,
            },
            `the page of listNames with prefix ${JSON.stringify(prefix)} after cursor ${JSON.stringify(cursor)}, limit ${limit}`,
          );
        }
      }
    },
    { scale: 0.3, min: 5 },
  );
}

/**
 * Names that a folding index would take for one another: case (ASCII, Latin-1, Greek final
 * sigma, the dotted I), Unicode normalization (precomposed and combining), full width, and
 * a trailing space. Each is listed under its own prefixes only.
 */
const LOOKALIKES: readonly string[] = [
  "Report/a",
  "report/b",
  "REPORT/c",
  "r\u00e9sum\u00e9",
  "re\u0301sume\u0301",
  "R\u00c9SUM\u00c9",
  "\u0130stanbul",
  "istanbul",
  "\u03c3\u03bf\u03c6\u03bf\u03c2",
  "\u03a3\u039f\u03a6\u039f\u03a3",
  "\uff52eport",
  "report ",
  // A prefix read as a LIKE, glob or regular-expression pattern matches more than itself.
  "a_b",
  "axb",
  "a%b",
  "axyb",
  "a.b",
  "a*b",
  "a?b",
  "a[b]",
  "a\\b",
  "a^b",
  "a(b",
];
const LOOKALIKE_PREFIXES: readonly string[] = [
  "Report",
  "report",
  "REPORT/",
  "r\u00e9",
  "re\u0301",
  "R\u00c9",
  "\u0130",
  "i",
  "I",
  "\u03c3",
  "\u03a3",
  "\uff52",
  "report ",
  "a_",
  "a%",
  "a.",
  "a*",
  "a?",
  "a[",
  "a\\",
  "a(",
  "_",
  "%",
];

/** A prefix matches the name's own code points: no folding, no pattern characters. */
async function prefixMatchesExactly({ service }: LawContext) {
  const scope = freshScope("prefix-lookalikes");
  for (const name of LOOKALIKES) await service.put(scope, name, new Uint8Array([1]));
  const all = [...LOOKALIKES].sort(compareUtf8);
  for (const prefix of LOOKALIKE_PREFIXES) {
    for (const limit of [1, undefined]) {
      expectEqual(
        await readAllNames(service, scope, limit, prefix),
        all.filter((name) => name.startsWith(prefix)),
        `every page of listNames with prefix ${JSON.stringify(prefix)}, limit ${limit}`,
      );
    }
  }
}

export const prefixLaws = [
  check(
    "prefix",
    "listNames with a prefix equals the full listing filtered by the prefix, under every cursor, for names full of LIKE, glob and regular-expression characters too",
    prefixListingIsTheFilteredListing,
  ),
  check(
    "prefix",
    "a prefix matches names exactly as written: names that differ from it only by case, Unicode normalization or width, or that a LIKE, glob or regular-expression reading of it would match, are not listed",
    prefixMatchesExactly,
  ),
];
