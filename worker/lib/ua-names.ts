/**
 * Wren's spelling of browsers and systems ("Chrome 131", "macOS 14", "Windows 11"): shared by
 * the collector, which reads them from a User-Agent, and the importers (domain/imports), which
 * read them from another tool's export, so an imported "Firefox 68" is the collected one.
 */

/** The longest value kept. */
export const MAX_DIMENSION_LENGTH = 50;

/**
 * `value` reduced to what a dimension may hold: ASCII letters, digits, space, dot, hyphen,
 * underscore and parentheses (anything else is dropped), at most 50 characters; null when
 * nothing is left.
 */
export function clean(value: string | null | undefined): string | null {
  if (!value) return null;
  const kept = value
    .slice(0, 4 * MAX_DIMENSION_LENGTH)
    .replace(/[^A-Za-z0-9 ._()-]/g, "")
    .replace(/ {2,}/g, " ")
    .trim();
  return kept.slice(0, MAX_DIMENSION_LENGTH).trim() || null;
}

/** The major version in "131.0.6778.86" ("131"), or null. */
export function major(version: string | null | undefined): number | null {
  const digits = /^\s*(\d{1,6})(?!\d)/.exec(version ?? "");
  return digits ? Number(digits[1]) : null;
}

/** "name major", or "name" when there is no version. */
export function withMajor(name: string, version: string | null | undefined): string | null {
  const number = major(version);
  return clean(number === null ? name : `${name} ${number}`);
}

/** "macOS 14" from "14.6", "macOS 10.13" from "10.13.6", and "macOS" for 10.15, which browsers freeze. */
export function macOS(version: string | null | undefined): string {
  const [first, second] = (version ?? "").split(/[._]/).map((part) => major(part));
  // Safari, Chrome and Firefox all freeze the User-Agent at 10.15(.7): a Mac that says so may
  // run anything since, so no version is claimed. Before that, the minor number is the release.
  if (first === 10 && second !== null && second !== undefined && second < 15) return `macOS 10.${second}`;
  if (first !== null && first !== undefined && first >= 11) return `macOS ${first}`;
  return "macOS";
}
