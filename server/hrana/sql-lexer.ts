/**
 * A tokenizer that follows SQLite's own tokenizer rules (tokenize.c) closely enough to split
 * statements, find host parameters and classify statements. The `libsql` binding exposes none
 * of sqlite3_bind_parameter_name/count, sqlite3_stmt_readonly or the prepare tail, so the
 * server has to read the SQL text itself.
 */

export type TokenKind =
  | "word" // identifier or keyword (unquoted)
  | "quoted" // "ident", `ident`, [ident]
  | "string" // 'text'
  | "blob" // x'00ff'
  | "number"
  | "param" // ?, ?NNN, :name, @name, $name, #name
  | "semi"
  | "lparen"
  | "rparen"
  | "comma"
  | "dot"
  | "operator"
  | "illegal";

export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** Upper-cased text for words, raw text otherwise. */
  text: string;
}

const CH_TAB = 9;
const CH_LF = 10;
const CH_FF = 12;
const CH_CR = 13;
const CH_SPACE = 32;

function isSpace(c: number): boolean {
  return c === CH_SPACE || c === CH_TAB || c === CH_LF || c === CH_FF || c === CH_CR;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** SQLite's IdChar(): letters, digits, '_', '$' and every non-ASCII character. */
function isIdChar(c: number): boolean {
  return isAlpha(c) || isDigit(c) || c === 95 || c === 36 || c >= 0x80;
}

function isIdStart(c: number): boolean {
  return isAlpha(c) || c === 95 || c >= 0x80;
}

/** Scans one token starting at `i` (which must not be past the end). Whitespace and comments
 * are returned as `null` with the end offset so the caller can skip them. */
function scan(sql: string, i: number): { kind: TokenKind | null; end: number } {
  const c = sql.charCodeAt(i);
  const n = sql.length;
  const next = i + 1 < n ? sql.charCodeAt(i + 1) : -1;

  if (isSpace(c)) {
    let j = i + 1;
    while (j < n && isSpace(sql.charCodeAt(j))) j++;
    return { kind: null, end: j };
  }
  if (c === 45 /* - */ && next === 45) {
    const nl = sql.indexOf("\n", i + 2);
    return { kind: null, end: nl < 0 ? n : nl + 1 };
  }
  if (c === 47 /* / */ && next === 42 /* * */) {
    // An unterminated block comment runs to the end of the input, as in SQLite.
    const close = sql.indexOf("*/", i + 2);
    return { kind: null, end: close < 0 ? n : close + 2 };
  }
  if (c === 39 /* ' */ || c === 34 /* " */ || c === 96 /* ` */) {
    let j = i + 1;
    for (;;) {
      if (j >= n) return { kind: "illegal", end: n };
      if (sql.charCodeAt(j) === c) {
        if (sql.charCodeAt(j + 1) === c) {
          j += 2;
          continue;
        }
        return { kind: c === 39 ? "string" : "quoted", end: j + 1 };
      }
      j++;
    }
  }
  if (c === 91 /* [ */) {
    const close = sql.indexOf("]", i + 1);
    return close < 0 ? { kind: "illegal", end: n } : { kind: "quoted", end: close + 1 };
  }
  if ((c === 120 || c === 88) /* x X */ && next === 39) {
    let j = i + 2;
    while (j < n && isHexDigit(sql.charCodeAt(j))) j++;
    if (j < n && sql.charCodeAt(j) === 39 && (j - i - 2) % 2 === 0) return { kind: "blob", end: j + 1 };
    // Malformed blob literal: consume up to the closing quote (or the end) like SQLite does.
    while (j < n && sql.charCodeAt(j) !== 39) j++;
    return { kind: "illegal", end: Math.min(n, j + 1) };
  }
  if (isDigit(c) || (c === 46 /* . */ && isDigit(next))) {
    let j = i + 1;
    while (j < n) {
      const d = sql.charCodeAt(j);
      const prev = sql.charCodeAt(j - 1);
      if (isIdChar(d) || d === 46) {
        j++;
      } else if ((d === 43 || d === 45) && (prev === 101 || prev === 69) && !/^0[xX]/.test(sql.slice(i, i + 2))) {
        j++; // exponent sign, as in 1e-5
      } else {
        break;
      }
    }
    return { kind: "number", end: j };
  }
  if (c === 63 /* ? */) {
    let j = i + 1;
    while (j < n && isDigit(sql.charCodeAt(j))) j++;
    return { kind: "param", end: j };
  }
  if (c === 58 || c === 64 || c === 36 || c === 35 /* : @ $ # */) {
    // Named parameter, including the TCL forms `$a::b` and `$a(x)` that SQLite accepts.
    let j = i + 1;
    let nameChars = 0;
    while (j < n) {
      const d = sql.charCodeAt(j);
      if (isIdChar(d)) {
        nameChars++;
        j++;
      } else if (d === 40 /* ( */ && nameChars > 0) {
        j++;
        while (j < n && !isSpace(sql.charCodeAt(j)) && sql.charCodeAt(j) !== 41) j++;
        if (j < n && sql.charCodeAt(j) === 41) return { kind: "param", end: j + 1 };
        return { kind: "illegal", end: j };
      } else if (d === 58 && sql.charCodeAt(j + 1) === 58) {
        j += 2;
      } else {
        break;
      }
    }
    return { kind: nameChars > 0 ? "param" : "illegal", end: j };
  }
  if (isIdStart(c)) {
    let j = i + 1;
    while (j < n && isIdChar(sql.charCodeAt(j))) j++;
    return { kind: "word", end: j };
  }
  switch (c) {
    case 59:
      return { kind: "semi", end: i + 1 };
    case 40:
      return { kind: "lparen", end: i + 1 };
    case 41:
      return { kind: "rparen", end: i + 1 };
    case 44:
      return { kind: "comma", end: i + 1 };
    case 46:
      return { kind: "dot", end: i + 1 };
    case 45: // - -> ->>
      if (next === 62) return { kind: "operator", end: sql.charCodeAt(i + 2) === 62 ? i + 3 : i + 2 };
      return { kind: "operator", end: i + 1 };
    case 60: // < <= <> <<
      return { kind: "operator", end: next === 61 || next === 62 || next === 60 ? i + 2 : i + 1 };
    case 62: // > >= >>
      return { kind: "operator", end: next === 61 || next === 62 ? i + 2 : i + 1 };
    case 61: // = ==
      return { kind: "operator", end: next === 61 ? i + 2 : i + 1 };
    case 33: // != (a lone ! is illegal)
      return next === 61 ? { kind: "operator", end: i + 2 } : { kind: "illegal", end: i + 1 };
    case 124: // | ||
      return { kind: "operator", end: next === 124 ? i + 2 : i + 1 };
    case 43:
    case 42:
    case 47:
    case 37:
    case 38:
    case 126:
      return { kind: "operator", end: i + 1 };
    default:
      return { kind: "illegal", end: i + 1 };
  }
}

/** Tokenizes the whole text, dropping whitespace and comments. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const { kind, end } = scan(sql, i);
    if (kind !== null) {
      const raw = sql.slice(i, end);
      tokens.push({ kind, start: i, end, text: kind === "word" ? raw.toUpperCase() : raw });
    }
    i = end;
  }
  return tokens;
}
