/**
 * Days of counts as a reader adds them up: totals and cells summed per (day, report, value),
 * where several rows give the same value (Plausible's sources rows per source and campaign
 * combination make one `source` cell per source). An empty value is no cell.
 */
import { IMPORTED_DIMENSIONS, type ImportedCell, type ImportedDay, type ImportedDimension, type ImportedTotals } from "../model";

interface DayEntry {
  totals: ImportedTotals;
  cells: Map<string, ImportedCell>;
  rows: number;
  first: { file: string; line: number } | null;
}

const ORDER = new Map<string, number>(IMPORTED_DIMENSIONS.map((name, i) => [name, i]));

export class DayTable {
  private readonly days = new Map<string, DayEntry>();

  private entry(day: string): DayEntry {
    let entry = this.days.get(day);
    if (!entry) {
      entry = {
        totals: { visitors: 0, pageviews: 0, visits: 0, bounces: 0, visitDuration: 0 },
        cells: new Map(),
        rows: 0,
        first: null,
      };
      this.days.set(day, entry);
    }
    return entry;
  }

  /** Counts a file's row as the day's (for the refusal of a whole day); the first one is kept. */
  row(day: string, file: string, line: number): void {
    const entry = this.entry(day);
    entry.rows++;
    entry.first ??= { file, line };
  }

  addTotals(day: string, add: Partial<ImportedTotals>): void {
    const totals = this.entry(day).totals;
    totals.visitors += add.visitors ?? 0;
    totals.pageviews += add.pageviews ?? 0;
    totals.visits += add.visits ?? 0;
    totals.bounces += add.bounces ?? 0;
    totals.visitDuration += add.visitDuration ?? 0;
  }

  addCell(day: string, dimension: ImportedDimension, value: string | null, visitors: number, pageviews: number): void {
    if (value === null || value === "") return;
    const cells = this.entry(day).cells;
    const key = `${dimension}\u0000${value}`;
    const cell = cells.get(key);
    if (cell) {
      cell.visitors += visitors;
      cell.pageviews += pageviews;
    } else cells.set(key, { dimension, value, visitors, pageviews });
  }

  /** The days in order, each day's cells by report (IMPORTED_DIMENSIONS' order), then value. */
  result(): ImportedDay[] {
    return [...this.days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([day, entry]) => ({
        day,
        totals: entry.totals,
        cells: [...entry.cells.values()].sort(
          (a, b) => ORDER.get(a.dimension)! - ORDER.get(b.dimension)! || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
        ),
        ...(entry.first ? { origin: { rows: entry.rows, first: entry.first } } : {}),
      }));
  }
}
