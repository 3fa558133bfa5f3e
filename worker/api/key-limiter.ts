/**
 * A key's RateLimiter object, by key id: every request of the key (pipeline.ts) and its usage
 * route meet this one. Kept apart from the Durable Object class, so that the route table loads
 * outside workerd too.
 */
import type { RateLimiter } from "./ratelimit";

export function rateLimiterFor(namespace: DurableObjectNamespace<RateLimiter>, keyId: string): DurableObjectStub<RateLimiter> {
  return namespace.get(namespace.idFromName(keyId));
}
