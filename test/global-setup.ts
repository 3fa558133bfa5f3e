/**
 * Builds the workers, tracker and dashboard once before the node tests, so the many
 * `wren start` stacks the tests launch in parallel find fresh builds instead of racing to
 * write the same files.
 */
import { buildDashboard, buildWorkers } from "../scripts/build";

export default async function setup(): Promise<void> {
  await Promise.all([buildWorkers(), buildDashboard()]);
}
