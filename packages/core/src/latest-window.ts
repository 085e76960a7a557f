/** How many versions below the high-water mark the first look covers. */
const FIRST_WINDOW = 8;
/** How much wider each further look reaches down, when the top versions are all deleted. */
const WIDENING = 16;

/**
 * The highest live version of a name in a store that lists in ascending order only (GCS,
 * S3), without reading every version: look just below the name's high-water mark `highWater`
 * (listing from there to the end of the name, so versions published above a stale mark are
 * found too), and only when the top versions are all gone reach further down, in ever wider
 * windows. One listing in the steady state whatever the number of versions; a few when many
 * top versions were deleted.
 *
 * `highestIn(from, below)` answers the highest live version in [from, below), `below`
 * undefined meaning "to the end of the name", or undefined when there is none.
 */
export async function highestUnderMark<T>(
  highWater: number,
  highestIn: (from: number, below: number | undefined) => Promise<T | undefined>,
): Promise<T | undefined> {
  let window = FIRST_WINDOW;
  let from = Math.max(1, highWater - window + 1);
  let below: number | undefined;
  for (;;) {
    const found = await highestIn(from, below);
    if (found !== undefined || from === 1) return found;
    below = from;
    window *= WIDENING;
    from = Math.max(1, from - window);
  }
}
