/**
 * `work`, or a failure (`message`) once `ms` have passed, whichever comes first: for a wait that
 * has a deadline of its own to keep (/readyz's checks, FCM's token exchange inside a send's).
 * The work is not stopped, only no longer waited for. The timer is cleared when the work settles
 * first and never holds the process open.
 */
export function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), Math.max(0, ms));
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
