// The single-writer queue: FIFO hand-off, bounded waits, shutdown.

import { describe, expect, test } from "vitest";
import { LockClosedError, LockTimeoutError, WriteLock } from "../../server/hrana/write-lock.js";

describe("WriteLock", () => {
  test("hands the lock to waiters in arrival order", async () => {
    const lock = new WriteLock();
    const order: number[] = [];
    await lock.acquire(1000);
    const waiters = [1, 2, 3].map((n) => lock.acquire(1000).then(() => order.push(n)));
    expect(lock.queueLength).toBe(3);
    for (let i = 0; i < 3; i++) {
      lock.release();
      await waiters[i];
    }
    expect(order).toEqual([1, 2, 3]);
    lock.release();
    expect(lock.held).toBe(false);
  });

  test("a waiter gives up after its timeout and leaves the queue", async () => {
    const lock = new WriteLock();
    await lock.acquire(1000);
    const started = Date.now();
    await expect(lock.acquire(50)).rejects.toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(lock.queueLength).toBe(0);
    lock.release();
    expect(lock.held).toBe(false);
  });

  test("close fails waiters and refuses new ones", async () => {
    const lock = new WriteLock();
    await lock.acquire(1000);
    const waiting = lock.acquire(1000);
    lock.close();
    await expect(waiting).rejects.toBeInstanceOf(LockClosedError);
    await expect(lock.acquire(1000)).rejects.toBeInstanceOf(LockClosedError);
  });

  test("releasing an unheld lock is a bug", () => {
    expect(() => new WriteLock().release()).toThrow("without a holder");
  });
});
