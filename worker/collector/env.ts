/** The collector's bindings: the shared ones plus its two Durable Object namespaces. */
import type { CollectorEnv } from "../lib/env";
import type { CollectorState } from "./state";
import type { IngestWriter } from "./writer";

export interface CollectorWorkerEnv extends CollectorEnv {
  /** Session salts (rotated by alarm) and the last verified token version per site. */
  COLLECTOR_STATE: DurableObjectNamespace<CollectorState>;
  /** The one writer that batches rows from concurrent requests into single transactions. */
  INGEST_WRITER: DurableObjectNamespace<IngestWriter>;
}
