/**
 * An SMTP server on 127.0.0.1 for tests (smtp-server): it takes every message sent with the
 * expected user and password, and keeps it parsed simply — envelope, headers, the subject
 * (RFC 2047 words decoded) and the text and HTML parts (quoted-printable or base64 decoded).
 * It can be stopped and started again on the same port, to play a mail server that is down.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface SunkMessage {
  from: string;
  to: string[];
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpSink {
  port: number;
  /** smtp://user:pass@127.0.0.1:port */
  url: string;
  messages: SunkMessage[];
  /** Stops listening (a server that is down: connections are refused). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

function unfoldHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0) headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return headers;
}

function quotedPrintable(text: string): Buffer {
  const soft = text.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, "utf8"));
  }
  return Buffer.from(bytes);
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? "7bit").toLowerCase();
  if (e === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (e === "quoted-printable") return quotedPrintable(body).toString("utf8");
  return body;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), adjacent ones joined. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : quotedPrintable(text.replace(/_/g, " ")).toString("utf8"),
    );
}

/** The parts of a MIME message: text/plain and text/html, found through multipart boundaries. */
function parts(headers: Map<string, string>, body: string, out: { text: string; html: string }): void {
  const type = headers.get("content-type") ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith("--")) break;
      const split = chunk.replace(/^\r?\n/, "").search(/\r?\n\r?\n/);
      const trimmed = chunk.replace(/^\r?\n/, "");
      if (split < 0) continue;
      const partHeaders = unfoldHeaders(trimmed.slice(0, split));
      parts(
        partHeaders,
        trimmed
          .slice(split)
          .replace(/^\r?\n\r?\n/, "")
          .replace(/\r?\n$/, ""),
        out,
      );
    }
    return;
  }
  const decoded = decodeBody(body, headers.get("content-transfer-encoding")).replace(/\r\n/g, "\n");
  if (/^text\/html/i.test(type)) out.html += decoded;
  else if (/^text\/plain/i.test(type)) out.text += decoded;
}

export function parseMessage(raw: string, from: string, to: string[]): SunkMessage {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = unfoldHeaders(raw.slice(0, split));
  const out = { text: "", html: "" };
  parts(headers, raw.slice(split).replace(/^\r?\n\r?\n/, ""), out);
  return { from, to, headers, subject: decodeWords(headers.get("subject") ?? ""), text: out.text, html: out.html, raw };
}

export async function startSmtpSink(user = "wren", pass = "s3cret-pa55"): Promise<SmtpSink> {
  const messages: SunkMessage[] = [];
  let server: SMTPServer | undefined;
  let port = 0;
  const listen = async () => {
    server = new SMTPServer({
      // Plain SMTP on loopback, as a relay inside a trusted network: no STARTTLS to offer, AUTH allowed without it.
      disabledCommands: ["STARTTLS"],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === user && auth.password === pass) callback(null, { user });
        else callback(new Error("Invalid username or password"));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          messages.push(
            parseMessage(
              Buffer.concat(chunks).toString("utf8"),
              from,
              session.envelope.rcptTo.map((r) => r.address),
            ),
          );
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server!.once("error", reject);
      server!.listen(port, "127.0.0.1", () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  };
  await listen();
  return {
    port,
    url: `smtp://${user}:${pass}@127.0.0.1:${port}`,
    messages,
    stop: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
    start: listen,
  };
}
