import { expect, it } from "vitest";
import { type Spare, SpareInodes } from "../src/spare-inodes.js";

// The pool's rules, over spares that only record what happened to them.

interface Made extends Spare {
  readonly id: number;
  discarded: boolean;
}

function counting(): { make: () => Promise<Made>; made: Made[] } {
  const made: Made[] = [];
  return {
    made,
    make: async () => {
      const spare: Made = {
        id: made.length,
        madeAt: Date.now(),
        discarded: false,
        discard: async () => {
          spare.discarded = true;
        },
      };
      made.push(spare);
      return spare;
    },
  };
}

it("hands out the spare a refill made ahead, and makes one when none is ready", async () => {
  const { make, made } = counting();
  const spares = new SpareInodes(make, 60_000);
  const first = await spares.take();
  // Nothing was ready: the take made its own, and no next one until a refill.
  expect(made.length).toBe(1);
  spares.refill();
  spares.refill(); // one spare ahead at most
  expect(made.length).toBe(2);
  const second = await spares.take();
  expect(second).toBe(made[1]);
  expect(made.length).toBe(2);
  spares.refill();
  expect(made.length).toBe(3);
  expect(second.id).not.toBe(first.id);
  expect(made.filter((spare) => spare.discarded)).toEqual([]);
  await spares.discard();
  expect(made.at(-1)?.discarded).toBe(true);
  expect(first.discarded || second.discarded).toBe(false);
});

it("gives concurrent takers different spares", async () => {
  const { make } = counting();
  const spares = new SpareInodes(make, 60_000);
  const taken = await Promise.all(Array.from({ length: 5 }, () => spares.take()));
  expect(new Set(taken.map((spare) => spare.id)).size).toBe(5);
  await spares.discard();
});

it("throws away a spare older than its age limit and makes a fresh one", async () => {
  const { make, made } = counting();
  const spares = new SpareInodes(make, 5);
  const first = await spares.take();
  spares.refill();
  const ready = made.find((spare) => spare !== first) as Made;
  // At least 20 ms pass (more on a slow machine): the spare made ahead is then past 5 ms.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const asked = Date.now();
  const taken = await spares.take();
  expect(ready.discarded).toBe(true);
  expect(taken.id).not.toBe(ready.id);
  // The one handed out instead was made for this take, however long the take took.
  expect(taken.madeAt).toBeGreaterThanOrEqual(asked);
  await spares.discard();
});

it("reports a failed make to its taker, and recovers on the next take", async () => {
  let fail = true;
  const { make } = counting();
  const spares = new SpareInodes(async () => {
    if (fail) throw new Error("disk full");
    return make();
  }, 60_000);
  await expect(spares.take()).rejects.toThrow("disk full");
  // A refill that fails is not the next taker's failure: the take makes its own.
  spares.refill();
  fail = false;
  await expect(spares.take()).resolves.toMatchObject({ discarded: false });
  await spares.discard();
});
