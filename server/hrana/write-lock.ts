/**
 * The single-writer queue. SQLite (WAL) allows one writer at a time; instead of letting a
 * second writer fail with SQLITE_BUSY (busy_timeout is 0, and a busy wait would block the
 * event loop), a stream about to write awaits this FIFO mutex and holds it until its
 * connection is back in autocommit mode. Readers never touch it.
 */

export class LockTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    super(`Timed out after ${waitedMs} ms waiting for the database write lock`);
    this.name = "LockTimeoutError";
  }
}

export class LockClosedError extends Error {
  constructor() {
    super("The server is shutting down");
    this.name = "LockClosedError";
  }
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class WriteLock {
  #held = false;
  #closed = false;
  #granted = 0;
  readonly #waiters: Waiter[] = [];

  get held(): boolean {
    return this.#held;
  }

  get queueLength(): number {
    return this.#waiters.length;
  }

  /** How many times the lock was granted: the write transactions so far. */
  get granted(): number {
    return this.#granted;
  }

  /** Resolves once the caller owns the lock; rejects after `timeoutMs` in the queue. */
  acquire(timeoutMs: number): Promise<void> {
    if (this.#closed) return Promise.reject(new LockClosedError());
    if (!this.#held) {
      this.#held = true;
      this.#granted++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = this.#waiters.indexOf(waiter);
          if (index >= 0) this.#waiters.splice(index, 1);
          reject(new LockTimeoutError(timeoutMs));
        }, timeoutMs),
      };
      this.#waiters.push(waiter);
    });
  }

  /** Hands the lock straight to the next waiter, so a burst of writers cannot starve one. */
  release(): void {
    if (!this.#held) throw new Error("WriteLock.release() without a holder");
    const next = this.#waiters.shift();
    if (next === undefined) {
      this.#held = false;
      return;
    }
    clearTimeout(next.timer);
    this.#granted++;
    next.resolve();
  }

  /** Fails every waiter and refuses new ones (server shutdown). */
  close(): void {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new LockClosedError());
    }
  }
}
