/**
 * Hrana streams and their batons. A stream owns one engine connection (borrowed lazily from the
 * pool) and its stored SQL texts; each HTTP request acquires the stream with the baton it got
 * last time and releases it with a fresh one (batons are single-use). A stream left idle for
 * `idleMs` expires: its open transaction rolls back and its baton then answers STREAM_EXPIRED,
 * mirroring sqld's libsql-server/src/hrana/http/stream.rs.
 */

import { BatonCodec, randomU64 } from "./baton.js";
import type { ConnectionPool, EngineConnection } from "./connection-pool.js";
import { BatonError, HttpError, StreamExpiredError } from "./errors.js";
import type { WriteLock } from "./write-lock.js";

const U64_MASK = 2n ** 64n - 1n;
/** sqld keeps expired streams around for 300 s so their batons say "expired", not "invalid". */
const EXPIRED_MEMORY_MS = 300_000;
const MAX_EXPIRED_REMEMBERED = 10_000;

export class Stream {
  readonly id: bigint;
  seq: bigint;
  readonly sqls = new Map<number, string>();
  /** Set by the `close` request: the connection is gone, the baton will be null. */
  closed = false;
  acquired = false;
  holdsWriteLock = false;
  /** Inside a `BEGIN TRANSACTION READONLY` transaction: writes are refused until it ends. */
  readOnlyTransaction = false;
  expiryTimer: NodeJS.Timeout | undefined;
  readonly #pool: ConnectionPool;
  readonly #lock: WriteLock;
  #conn: EngineConnection | undefined;

  constructor(id: bigint, seq: bigint, pool: ConnectionPool, lock: WriteLock) {
    this.id = id;
    this.seq = seq;
    this.#pool = pool;
    this.#lock = lock;
  }

  /** Requests that need the database fail on a closed stream, as in sqld. */
  assertOpen(): void {
    if (this.closed) throw BatonError.streamClosed();
  }

  /** The stream's connection, borrowed from the pool on first use. */
  connection(): EngineConnection {
    if (this.closed) throw BatonError.streamClosed();
    this.#conn ??= this.#pool.acquire();
    return this.#conn;
  }

  get isAutocommit(): boolean {
    return this.#conn === undefined || !this.#conn.inTransaction;
  }

  async acquireWriteLock(timeoutMs: number): Promise<void> {
    if (this.holdsWriteLock) return;
    await this.#lock.acquire(timeoutMs);
    this.holdsWriteLock = true;
  }

  /** Writers keep the lock for the whole transaction and drop it once back in autocommit. */
  releaseWriteLockIfAutocommit(): void {
    if (this.holdsWriteLock && this.isAutocommit) {
      this.holdsWriteLock = false;
      this.#lock.release();
    }
  }

  /** Rolls back whatever is open, returns the connection and the lock. Idempotent. */
  close(): void {
    this.closed = true;
    const conn = this.#conn;
    this.#conn = undefined;
    if (conn !== undefined) this.#pool.release(conn);
    if (this.holdsWriteLock) {
      this.holdsWriteLock = false;
      this.#lock.release();
    }
  }
}

export interface StreamManagerOptions {
  idleMs: number;
  maxStreams: number;
  pool: ConnectionPool;
  lock: WriteLock;
}

export class StreamManager {
  readonly #streams = new Map<bigint, Stream>();
  readonly #expired = new Map<bigint, number>();
  readonly #batons = new BatonCodec();
  readonly #options: StreamManagerOptions;

  constructor(options: StreamManagerOptions) {
    this.#options = options;
  }

  get openCount(): number {
    return this.#streams.size;
  }

  /** Opens a new stream (baton null) or takes the one the baton names. */
  acquire(baton: string | null): Stream {
    if (baton === null) return this.#create();
    const payload = this.#batons.decode(baton);
    if (payload === undefined) throw BatonError.invalid();
    const stream = this.#streams.get(payload.streamId);
    if (stream === undefined) {
      if (this.#expired.has(payload.streamId)) throw new StreamExpiredError();
      throw BatonError.invalid();
    }
    if (stream.acquired || stream.seq !== payload.seq) throw BatonError.reused();
    clearTimeout(stream.expiryTimer);
    stream.expiryTimer = undefined;
    // A new sequence number makes the baton just used worthless.
    stream.seq = (stream.seq + 1n) & U64_MASK;
    stream.acquired = true;
    return stream;
  }

  /** Ends a request on the stream: returns the next baton, or null if the stream was closed. */
  release(stream: Stream): string | null {
    stream.acquired = false;
    if (stream.closed) {
      this.#streams.delete(stream.id);
      return null;
    }
    stream.expiryTimer = setTimeout(() => this.#expire(stream), this.#options.idleMs);
    stream.expiryTimer.unref();
    return this.#batons.encode({ streamId: stream.id, seq: stream.seq });
  }

  /** Drops a stream after a protocol error (sqld does not release such a stream either). */
  discard(stream: Stream): void {
    clearTimeout(stream.expiryTimer);
    this.#streams.delete(stream.id);
    stream.close();
  }

  /** Closes every stream that is not serving a request right now (shutdown). */
  closeIdle(): void {
    for (const stream of [...this.#streams.values()]) {
      if (stream.acquired) continue;
      clearTimeout(stream.expiryTimer);
      this.#streams.delete(stream.id);
      stream.close();
    }
  }

  closeAll(): void {
    for (const stream of this.#streams.values()) {
      clearTimeout(stream.expiryTimer);
      stream.close();
    }
    this.#streams.clear();
  }

  #create(): Stream {
    if (this.#streams.size >= this.#options.maxStreams) {
      throw new HttpError(429, { error: "Too many concurrent requests" });
    }
    let id = randomU64();
    while (this.#streams.has(id) || this.#expired.has(id)) id = randomU64();
    // A random first sequence number makes baton collisions across streams useless.
    const stream = new Stream(id, randomU64(), this.#options.pool, this.#options.lock);
    stream.acquired = true;
    this.#streams.set(id, stream);
    return stream;
  }

  #expire(stream: Stream): void {
    if (stream.acquired || this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    stream.close();
    this.#rememberExpired(stream.id);
  }

  #rememberExpired(id: bigint): void {
    const now = Date.now();
    this.#expired.set(id, now);
    // Entries are in expiry order: forget the ones past their memory window, and cap the size.
    for (const [oldId, at] of this.#expired) {
      if (now - at < EXPIRED_MEMORY_MS && this.#expired.size <= MAX_EXPIRED_REMEMBERED) break;
      this.#expired.delete(oldId);
    }
  }
}
