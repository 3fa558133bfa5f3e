/** A country's English name from its ISO 3166-1 code, as the browser knows it (Intl.DisplayNames). */

const regions = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
  } catch {
    return null;
  }
})();

/** "DE" → "Germany"; undefined where the browser knows no name (or the code is no region). */
export function countryName(code: string): string | undefined {
  try {
    return regions?.of(code) ?? undefined;
  } catch {
    return undefined; // not a region code: RangeError
  }
}
