/**
 * A Durable Object's id for this box (`box_…`): made once and kept in the object's storage, so
 * that it is the same after a restart — a lease holder that restarts keeps its own lease, and
 * its claims are recognised as its own.
 */
import { randomToken } from "./crypto";

export async function storedBoxId(storage: DurableObjectStorage, key: string): Promise<string> {
  let id = await storage.get<string>(key);
  if (!id) {
    id = `box_${randomToken(12)}`;
    await storage.put(key, id);
  }
  return id;
}
