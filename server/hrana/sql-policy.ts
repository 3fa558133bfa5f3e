/**
 * What SQL may call on this server: the functions and virtual-table modules sqld offers, and
 * nothing else. The `libsql` npm engine is built with extras that sqld does not have, some of
 * them dangerous for a network server: the SQLite shell's fileio (readfile, writefile, fsdir,
 * lsmode — read, write and list any file the process can reach), load_extension (native code),
 * sha3_query (runs SQL text of its own, past this check), the SQLite3 Multiple Ciphers
 * configuration functions and sqlite_dbpage (raw page writes).
 *
 * The engine has no usable authorizer for this (libsql 0.5's `authorizer()` takes a table
 * allowlist and denies every function with it), so statements are checked here, on the tokens
 * the analysis already has, before they reach the engine. The rule is deny by default: every
 * function or module the engine knows (read from the engine itself at start) that is not on
 * the allowlist below is refused, so an engine upgrade that brings a new function brings it
 * refused. Names are matched the way SQLite resolves them: case-insensitively, quoted or not.
 */

import { StmtError } from "./errors.js";
import { type AnalyzedStatement, READABLE_PRAGMAS } from "./sql-analysis.js";
import type { Token } from "./sql-lexer.js";

/** sqld's function set: SQLite's core, date, aggregate, window and math functions, JSON,
 * the FTS3/FTS5, R*Tree and Geopoly auxiliaries, and libSQL's vector functions. */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set(
  [
    // Core scalar functions (lang_corefunc.html).
    "abs", "changes", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "ifnull", "iif", "if",
    "instr", "last_insert_rowid", "length", "like", "likelihood", "likely", "lower", "ltrim", "max", "min",
    "nullif", "octet_length", "printf", "quote", "random", "randomblob", "replace", "round", "rtrim", "sign",
    "soundex", "sqlite_compileoption_get", "sqlite_compileoption_used", "sqlite_offset", "sqlite_source_id",
    "sqlite_version", "substr", "substring", "total_changes", "trim", "typeof", "unhex", "unicode", "unlikely",
    "upper", "zeroblob",
    // Date and time.
    "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
    "current_date", "current_time", "current_timestamp",
    // Aggregates and window functions.
    "avg", "count", "group_concat", "string_agg", "sum", "total",
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
    // Math.
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees",
    "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh",
    "sqrt", "tan", "tanh", "trunc",
    // JSON (and the -> ->> operators, which the engine lists as functions).
    "->", "->>", "json", "json_array", "json_array_length", "json_error_position", "json_extract",
    "json_group_array", "json_group_object", "json_insert", "json_object", "json_patch", "json_pretty",
    "json_quote", "json_remove", "json_replace", "json_set", "json_type", "json_valid", "jsonb", "jsonb_array",
    "jsonb_extract", "jsonb_group_array", "jsonb_group_object", "jsonb_insert", "jsonb_object", "jsonb_patch",
    "jsonb_remove", "jsonb_replace", "jsonb_set",
    // Full-text search, R*Tree and Geopoly auxiliaries.
    "match", "bm25", "highlight", "snippet", "fts5", "fts5_source_id", "matchinfo", "offsets", "optimize",
    "rtreecheck", "rtreedepth", "rtreenode", "geopoly_area", "geopoly_bbox", "geopoly_blob", "geopoly_ccw",
    "geopoly_contains_point", "geopoly_debug", "geopoly_group_bbox", "geopoly_json", "geopoly_overlap",
    "geopoly_regular", "geopoly_svg", "geopoly_within", "geopoly_xform",
    // libSQL's vectors.
    "vector", "vector8", "vector16", "vector1bit", "vector32", "vector64", "vectorb16", "vector_extract",
    "vector_distance_cos", "vector_distance_l2", "libsql_vector_idx",
  ].map((name) => name.toUpperCase()),
);

/** Virtual-table modules sqld offers (eponymous ones can be read without parentheses, so a
 * module name anywhere in a statement counts). `pragma_*` tables are checked separately. */
const ALLOWED_MODULES = new Set(
  ["json_each", "json_tree", "fts3", "fts4", "fts3tokenize", "fts4aux", "fts5", "fts5vocab", "rtree", "rtree_i32",
    "geopoly", "generate_series", "vector_top_k"].map((name) => name.toUpperCase()),
);

/** Refused whatever the engine reports, so that a name the engine hides from its lists (or
 * registers late) is still covered. */
const ALWAYS_DENIED_FUNCTIONS = new Set(
  ["readfile", "writefile", "lsmode", "edit", "load_extension", "sha3_query", "fts3_tokenizer", "sqlite3mc_config",
    "sqlite3mc_config_table", "sqlite3mc_codec_data", "sqlite3mc_version", "sqlite_crypt", "sqlar_compress",
    "sqlar_uncompress"].map((name) => name.toUpperCase()),
);
const ALWAYS_DENIED_MODULES = new Set(["fsdir", "sqlite_dbpage", "zipfile"].map((name) => name.toUpperCase()));

/** An identifier token's name as SQLite resolves it, or undefined for other tokens. */
function identifierName(token: Token): string | undefined {
  if (token.kind === "word") return token.text;
  if (token.kind !== "quoted") return undefined;
  const raw = token.text;
  const inner = raw.slice(1, -1);
  // "a""b" and `a``b` escape the quote by doubling it; [a] has no escapes.
  return (raw[0] === "[" ? inner : inner.replaceAll(raw[0]! + raw[0]!, raw[0]!)).toUpperCase();
}

function refused(kind: "function" | "module", name: string): StmtError {
  return new StmtError("SQLITE_AUTH", `SQLite error: not authorized to use ${kind}: ${name.toLowerCase()} (file, extension and cipher functions are not offered)`);
}

export interface EngineInventory {
  functions: Iterable<string>;
  modules: Iterable<string>;
}

export class SqlPolicy {
  readonly #deniedFunctions: ReadonlySet<string>;
  readonly #deniedModules: ReadonlySet<string>;
  readonly #allowedPragmaTables: ReadonlySet<string>;

  /** @param inventory every function and module the engine has (pragma_function_list and
   * pragma_module_list); whatever is not allowed above is refused. */
  constructor(inventory: EngineInventory) {
    const deniedFunctions = new Set(ALWAYS_DENIED_FUNCTIONS);
    for (const name of inventory.functions) if (!ALLOWED_FUNCTIONS.has(name.toUpperCase())) deniedFunctions.add(name.toUpperCase());
    const deniedModules = new Set(ALWAYS_DENIED_MODULES);
    for (const name of inventory.modules) {
      const upper = name.toUpperCase();
      if (!ALLOWED_MODULES.has(upper) && !upper.startsWith("PRAGMA_")) deniedModules.add(upper);
    }
    this.#deniedFunctions = deniedFunctions;
    this.#deniedModules = deniedModules;
    this.#allowedPragmaTables = new Set([...READABLE_PRAGMAS].map((name) => `PRAGMA_${name}`));
  }

  /** Names of the functions this policy refuses (for tests and docs). */
  get deniedFunctions(): ReadonlySet<string> {
    return this.#deniedFunctions;
  }

  /** Throws a StmtError (SQLITE_AUTH) if the statement names a refused function or module. */
  check(statement: AnalyzedStatement): void {
    const tokens = statement.tokens;
    for (let i = 0; i < tokens.length; i++) {
      const name = identifierName(tokens[i]!);
      if (name === undefined) continue;
      if (this.#deniedModules.has(name)) throw refused("module", name);
      // pragma_<name> tables exist for every pragma that returns rows; only the pragmas a
      // client may read as statements may be read as tables.
      if (name.startsWith("PRAGMA_") && !this.#allowedPragmaTables.has(name)) throw refused("module", name);
      if (tokens[i + 1]?.kind === "lparen" && this.#deniedFunctions.has(name)) throw refused("function", name);
    }
  }
}
