/**
 * Holds a real answer against the OpenAPI document: its status is one the operation documents,
 * its media type one that response documents, its body valid against that media type's schema
 * (ajv, JSON Schema 2020-12: `additionalProperties` as strict as documented), every required
 * header present and every documented header that is present valid. A 405 is held against
 * `components.responses.MethodNotAllowed` and the 405 each of the path's operations declares,
 * its `Allow` against the methods the document lists for the path. It remembers what it saw, so
 * a test can ask which documented answers no request produced.
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { expect } from "vitest";

/** An answer as the checks need it; `text` is the body ("" for none). */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

interface DocumentedResponse {
  content?: Record<string, { schema: object }>;
  headers?: Record<string, { required?: boolean; schema: { type?: string } }>;
}

type Operation = { responses: Record<string, DocumentedResponse> };

const JSON_TYPES = new Set(["application/json", "application/problem+json"]);

const mediaType = (headers: Headers) => (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

/** A document path template as a pattern for concrete paths: `{id}` is one segment. */
const templatePattern = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+").replace(/\./g, "\\.")}$`);

export class Contract {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  private readonly validators = new WeakMap<object, ValidateFunction>();
  private readonly seen = new Map<string, Set<string>>();

  private constructor(private readonly document: { paths: Record<string, Record<string, Operation>>; components: any }) {}

  /** The document with every $ref resolved (swagger-parser), ready to check answers against. */
  static async of(document: object): Promise<Contract> {
    const resolved = await SwaggerParser.dereference(structuredClone(document) as never);
    return new Contract(resolved as never);
  }

  /** Every operation, as "METHOD /template". */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
  }

  private operation(name: string): Operation {
    const [method, path] = name.split(" ") as [string, string];
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    expect(operation, `${name} is not in the document`).toBeDefined();
    return operation!;
  }

  /** Checks `answer` against operation `name` ("POST /api/v1/sites") and notes its status as seen. */
  check(name: string, answer: Answer): void {
    const responses = this.operation(name).responses;
    const status = String(answer.status);
    const what = `${name} → ${status}: ${answer.text.slice(0, 300)}`;
    expect(Object.keys(responses), `${what}\nstatus not documented`).toContain(status);
    this.holds(responses[status]!, answer, what, name.startsWith("HEAD "));
    const statuses = this.seen.get(name) ?? new Set();
    this.seen.set(name, statuses.add(status));
  }

  /** Checks a 405 for `method` on the concrete `path`: the component, and `Allow` as the document lists the path's methods. */
  checkMethodNotAllowed(method: string, path: string, answer: Answer): void {
    const what = `${method} ${path} → ${answer.status}: ${answer.text.slice(0, 300)}`;
    expect(answer.status, what).toBe(405);
    this.holds(this.document.components.responses.MethodNotAllowed, answer, what, false);
    const templates = Object.keys(this.document.paths).filter((template) => templatePattern(template).test(path));
    const documented = templates.flatMap((template) => Object.keys(this.document.paths[template]!).map((m) => m.toUpperCase()));
    expect(documented, `${path} is no path of the document`).not.toEqual([]);
    expect(documented, `${method} is documented for ${path}`).not.toContain(method);
    // Each operation of the path declares the 405 (OpenAPI has no path-level answers): this one is theirs too.
    for (const template of templates)
      for (const m of Object.keys(this.document.paths[template]!)) {
        const name = `${m.toUpperCase()} ${template}`;
        const declared = this.operation(name).responses["405"];
        expect(declared, `${name} declares no 405`).toBeDefined();
        this.holds(declared!, answer, what, false);
        this.seen.set(name, (this.seen.get(name) ?? new Set()).add("405"));
      }
    const allowed = answer.headers.get("allow")!.split(", ");
    expect(new Set(allowed), what).toEqual(new Set(documented));
    expect(JSON.parse(answer.text).detail, what).toContain(method);
  }

  /** Documented answers no check has seen, as "METHOD /template status". */
  unseen(): string[] {
    return this.operations().flatMap((name) =>
      Object.keys(this.operation(name).responses)
        .filter((status) => !this.seen.get(name)?.has(status))
        .map((status) => `${name} ${status}`),
    );
  }

  private holds(response: DocumentedResponse, answer: Answer, what: string, head: boolean): void {
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = answer.headers.get(name);
      if (value === null) {
        expect(header.required ?? false, `${what}\nheader ${name} is required`).toBe(false);
        continue;
      }
      const typed = header.schema.type === "integer" && /^-?\d+$/.test(value) ? Number(value) : value;
      this.valid(header.schema, typed, `${what}\nheader ${name}: ${value}`);
    }
    // A HEAD answer has no body to check, whatever its Content-Type says.
    if (head) return;
    if (!response.content) {
      expect(answer.text, `${what}\nno body is documented`).toBe("");
      return;
    }
    const type = mediaType(answer.headers);
    expect(Object.keys(response.content), `${what}\nmedia type ${type} not documented`).toContain(type);
    const body = JSON_TYPES.has(type) ? JSON.parse(answer.text) : answer.text;
    this.valid(response.content[type]!.schema, body, `${what}\nbody`);
    if (type === "application/problem+json") expect(body.status, what).toBe(answer.status);
  }

  private valid(schema: object, value: unknown, what: string): void {
    let validate = this.validators.get(schema);
    if (!validate) this.validators.set(schema, (validate = this.ajv.compile(schema)));
    const ok = validate(value);
    expect(
      ok ? [] : validate.errors!.map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`),
      what,
    ).toEqual([]);
  }
}
