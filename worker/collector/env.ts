/** The collector's bindings: the shared ones plus its Durable Object namespace. */
import type { CollectorEnv } from "../lib/env";
import type { CollectorState } from "./state";

export interface CollectorWorkerEnv extends CollectorEnv {
  /** Session salts (rotated by alarm) and the last verified token version per site. */
  COLLECTOR_STATE: DurableObjectNamespace<CollectorState>;
}
