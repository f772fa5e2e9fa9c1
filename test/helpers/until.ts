// Waits for what a test expects to happen on its own (a delivery, a lease lapsing): `condition`
// polled every `everyMs`, failing the test with `what` after `ms`.
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  ms = 5000,
  everyMs = 10,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
