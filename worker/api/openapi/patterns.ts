/**
 * Patterns in the OpenAPI document that every JSON Schema validator reads alike. zod writes a
 * string's regex as its `pattern`; one with Unicode property escapes (`\p{L}`, `\P{Cc}`) means
 * what the code means only to a validator in Unicode mode (JavaScript's `u` flag), and others
 * misjudge or refuse it (Spectral's example check, Python's `re`, non-Unicode validators). The
 * document leaves such a pattern out and names the check in the field's description; the server
 * checks with the same zod schema as ever.
 */

/** A regular expression's Unicode property escapes (`\p{L}`, `\P{Cc}`). */
const UNICODE_PROPERTY = /\\[pP]\{/;

/** Wrappers zod renders into the same JSON schema as the string they wrap. */
const SAME_SCHEMA_WRAPPERS = new Set(["optional", "default", "prefault", "readonly"]);

interface ZodNode {
  _zod: {
    def: {
      type: string;
      innerType?: ZodNode;
      checks?: { _zod: { def: { format?: string; pattern?: RegExp; error?: () => unknown } } }[];
    };
  };
}

/** The refusal of a string's check by a pattern with Unicode property escapes, or null. */
function unicodePatternMessage(schema: ZodNode): string | null {
  let node: ZodNode | undefined = schema;
  while (node && SAME_SCHEMA_WRAPPERS.has(node._zod.def.type)) node = node._zod.def.innerType;
  if (node?._zod.def.type !== "string") return null;
  for (const check of node._zod.def.checks ?? []) {
    const { format, pattern, error } = check._zod.def;
    if (format === "regex" && pattern && UNICODE_PROPERTY.test(pattern.source)) {
      const message = error?.();
      return typeof message === "string" ? message : "must match the server's pattern";
    }
  }
  return null;
}

/**
 * A pattern with Unicode property escapes means what the code means only to a validator in
 * Unicode mode (JavaScript's `u` flag); others misread or refuse it (JSON Schema does not
 * require them; Python's `re` has no \p). Such a pattern is left out of the document and the
 * check it stands for is named in the description instead, in the words of the refusal the code
 * gives (zod's regex message); the code checks as before.
 */
export function withoutUnicodePatterns({
  jsonSchema,
  zodSchema,
}: {
  jsonSchema: Record<string, unknown>;
  zodSchema: unknown;
}): void {
  if (typeof jsonSchema.pattern === "string" && UNICODE_PROPERTY.test(jsonSchema.pattern)) delete jsonSchema.pattern;
  const message = unicodePatternMessage(zodSchema as ZodNode);
  if (message === null) return;
  const rule = `Checked by the server: ${message}.`;
  const description = typeof jsonSchema.description === "string" ? jsonSchema.description : "";
  if (!description.includes(rule)) jsonSchema.description = description ? `${description} ${rule}` : rule;
}
