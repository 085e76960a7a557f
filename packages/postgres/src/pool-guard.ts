import type { Pool } from "pg";

// pg reports a connection that was lost while idle in a pool (a server restart, a terminated
// backend, a cut network) as the pool's 'error' event, and an EventEmitter with no listener
// for 'error' throws it: one server restart would end the process of a caller who gave the
// pool no listener. So while a service is open on a pool, the pool has one listener of ours
// (one per pool, however many services share it). The pool has already dropped the lost
// connection by then: there is nothing more to do, and the caller's own listeners still hear
// every such error.

const services = new WeakMap<Pool, number>();
const dropped = () => {};

/** Listens to `pool`'s 'error' event until the returned release is called (once). */
export function guardPool(pool: Pool): () => void {
  const open = services.get(pool) ?? 0;
  if (open === 0) pool.on("error", dropped);
  services.set(pool, open + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (services.get(pool) ?? 1) - 1;
    if (left > 0) {
      services.set(pool, left);
      return;
    }
    services.delete(pool);
    pool.removeListener("error", dropped);
  };
}
