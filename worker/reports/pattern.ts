/**
 * Page filters: a path, or a pattern in which `*` stands for any run of characters (`/`
 * included) — the same language as goal patterns.
 */
export function pathFilter(pattern: string): (path: string) => boolean {
  if (!pattern.includes("*")) return (path) => path === pattern;
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  const regex = new RegExp(`^${body}$`, "s");
  return (path) => regex.test(path);
}
