// Types the Node-side code (CLI, tests) needs for modules shared with the workers.
declare global {
  type CryptoKey = import("node:crypto").webcrypto.CryptoKey;
  /** A workerd service binding, as far as the shared code uses it. */
  interface Fetcher {
    fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  }
}

export {};
