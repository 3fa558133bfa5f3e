/**
 * What a route handler answers, typed against the responses the route declares: `reply(status,
 * body)` takes only a status the route lists, and a body of that status's schema (none where
 * the status has no schema). Replies are opaque, so a handler cannot answer around its
 * declaration; the pipeline renders them, so every JSON answer is rendered one way.
 */
import type { z } from "zod";

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Other media types the route answers with on `Accept` (e.g. text/csv); bodies are text. */
  alsoAs?: string[];
  /** Headers the route sets on this answer beyond those every route's answers carry (api/openapi/headers.ts). */
  headers?: Record<string, HeaderSpec>;
}

/** A response header as the OpenAPI document describes it. */
export interface HeaderSpec {
  description: string;
  /** On every answer of the status; false for one only some carry (Link: only while a next page exists). */
  required: boolean;
  schema: { type: "string" | "integer"; format?: string; pattern?: string; const?: string | number; minimum?: number };
}

export type Responses = Record<number, ResponseSpec>;

export interface ReplyOptions {
  headers?: Record<string, string>;
  /** The same body in a media type of `alsoAs` (CSV, NDJSON), when the client asked for one. */
  representation?: Response | undefined;
}

type BodyOf<R> = R extends { schema: infer S extends z.ZodType } ? z.output<S> : undefined;

/** The arguments after the status: the body its schema asks for (none without a schema). */
export type ReplyArgs<R> =
  BodyOf<R> extends undefined ? [body?: undefined, options?: ReplyOptions] : [body: BodyOf<R>, options?: ReplyOptions];

declare const REPLY: unique symbol;

/** A rendered-to-be answer; only `reply` and `forward` make one. */
export type Reply = { readonly [REPLY]: true };

export interface Replier<R extends Responses> {
  reply<S extends keyof R & number>(status: S, ...args: ReplyArgs<R[S]>): Reply;
  /** Passes on another worker's answer as it is (the collector's, for POST /api/v1/events). */
  forward(response: Response): Reply;
}

type Answer = { status: number; body: unknown; options: ReplyOptions | undefined } | { forwarded: Response };

export const replier: Replier<Responses> = {
  reply: (status, ...[body, options]) => ({ status, body, options }) as Answer as unknown as Reply,
  forward: (response) => ({ forwarded: response }) as Answer as unknown as Reply,
};

export function renderReply(reply: Reply): Response {
  const answer = reply as unknown as Answer;
  if ("forwarded" in answer) return answer.forwarded;
  if (answer.options?.representation) return answer.options.representation;
  const headers = new Headers(answer.options?.headers);
  headers.set("cache-control", "no-store");
  if (answer.body === undefined) return new Response(null, { status: answer.status, headers });
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers });
}
