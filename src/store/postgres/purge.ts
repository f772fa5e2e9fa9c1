// Purges delete a batch at a time, so that no statement holds locks on many rows for long.
export const PURGE_BATCH = 10_000;

/** Runs `purgeBatch` until a batch deletes fewer than a batch's worth; how many it deleted in all. */
export async function purgeInBatches(purgeBatch: (batch: number) => Promise<number>): Promise<number> {
  let purged = 0;
  for (;;) {
    const deleted = await purgeBatch(PURGE_BATCH);
    purged += deleted;
    if (deleted < PURGE_BATCH) return purged;
  }
}
