/**
 * Every form that posts to the API, one way: a labelled control with its hint, and the API's
 * refusal under the field it names (the control marked invalid and described by it, the focus
 * moved there). A refusal naming no field the form draws is shown, and focused, for the whole form.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiProblem } from "../api/client";
import { NeedsScopeNotice } from "./states";

/** A refusal: the field it names (dotted, as the API names it), or null for the whole form. */
export interface FieldIssue {
  field: string | null;
  text: string;
  /** A 403's missing scope: the form names it, with how to get a key with it. */
  requiredScope?: string;
}

/** "/destinations/1/url" → "destinations.1.url" (JSON pointer escapes undone). */
function pointerPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** The field a problem names, and its words without the "field: " the API puts first. */
function fieldIssue(problem: ApiProblem): FieldIssue {
  // In a list, `field` names only the key ("url"); the pointer says which item.
  const field = problem.pointer ? pointerPath(problem.pointer) : (problem.field ?? null);
  const text = field ? problem.message.replace(/^[\w.[\]-]+: /, "") : problem.message;
  return {
    field,
    text: text.charAt(0).toUpperCase() + text.slice(1),
    requiredScope: problem.status === 403 ? problem.requiredScope : undefined,
  };
}

/**
 * Where a refusal is shown: the field it names if drawn, else its nearest drawn parent
 * ("scopes.2" → "scopes") or first drawn child ("rate_limit" → "rate_limit.requests");
 * null: the whole form.
 */
function placeIssue(field: string | null, drawn: readonly string[]): string | null {
  if (field === null) return null;
  for (let path = field; path; path = path.slice(0, Math.max(0, path.lastIndexOf(".")))) {
    if (drawn.includes(path)) return path;
  }
  return drawn.find((f) => f.startsWith(`${field}.`)) ?? null;
}

export interface ApiForm {
  /** Prefixes the controls' ids: `${id}-${field}`. */
  id: string;
  busy: boolean;
  issue: FieldIssue | null;
  /** The drawn field the issue is shown under; null with an issue: the whole form's. */
  issueAt: string | null;
  /** Binds to <form onSubmit>. */
  onSubmit(event: Event): void;
  problemRef: { current: HTMLDivElement | null };
}

function fieldId(form: Pick<ApiForm, "id">, field: string): string {
  return `${form.id}-${field.replace(/[^\w-]/g, "-")}`;
}

/** Moves the focus to a field's control; false when no control has its id. */
export function focusField(form: Pick<ApiForm, "id">, field: string): boolean {
  const control = document.getElementById(fieldId(form, field));
  control?.focus();
  return control !== null;
}

/**
 * Runs `send` on submit, once at a time; `check` first, for what the draft lacks before it is
 * worth sending. `fields`: the fields the form draws now, where a refusal can be shown.
 */
export function useApiForm<T>({
  id,
  fields,
  send,
  done,
  check,
}: {
  id: string;
  fields: readonly string[];
  send: () => Promise<T>;
  done: (result: T) => void;
  check?: () => FieldIssue | null;
}): ApiForm {
  const [busy, setBusy] = useState(false);
  const [issue, setIssue] = useState<FieldIssue | null>(null);
  const problemRef = useRef<HTMLDivElement>(null);
  const form: ApiForm = {
    id,
    busy,
    issue,
    issueAt: placeIssue(issue?.field ?? null, fields),
    problemRef,
    onSubmit(event) {
      event.preventDefault();
      if (busy) return;
      const missing = check?.() ?? null;
      setIssue(missing);
      if (missing) return;
      setBusy(true);
      send().then(
        (result) => {
          setBusy(false);
          done(result);
        },
        (error: unknown) => {
          setBusy(false);
          setIssue(fieldIssue(ApiProblem.from(error)));
        },
      );
    },
  };
  // A layout effect: the focus is there before the next key press.
  useLayoutEffect(() => {
    if (!issue) return;
    if (!form.issueAt || !focusField(form, form.issueAt)) problemRef.current?.focus();
  }, [issue]);
  return form;
}

export interface ControlProps {
  id: string;
  "aria-invalid"?: "true";
  "aria-describedby"?: string;
}

/** The attributes that tie a control (or a group's first control) to its hint and its problem. */
export function controlProps(form: ApiForm, field: string, hinted: boolean): ControlProps {
  const id = fieldId(form, field);
  const invalid = form.issueAt === field;
  const describedBy = [hinted ? `${id}-hint` : "", invalid ? `${id}-problem` : ""].filter(Boolean).join(" ");
  return { id, "aria-invalid": invalid ? "true" : undefined, "aria-describedby": describedBy || undefined };
}

export function FieldProblem({ form, field }: { form: ApiForm; field: string }) {
  if (form.issueAt !== field || !form.issue) return null;
  return (
    <p id={`${fieldId(form, field)}-problem`} class="field-problem">
      {form.issue.text}
    </p>
  );
}

/** The value of the input or select an event came from. */
export const valueOf = (event: Event) => (event.target as HTMLInputElement | HTMLSelectElement).value;

/** A labelled control with its hint and problem; `children` draws the control with the props given. */
export function Field({
  form,
  field,
  label,
  hint,
  children,
}: {
  form: ApiForm;
  field: string;
  label: string;
  hint?: ComponentChildren;
  children: (props: ControlProps) => ComponentChildren;
}) {
  const props = controlProps(form, field, hint !== undefined);
  return (
    <div class="field">
      <label for={props.id}>{label}</label>
      {children(props)}
      {hint !== undefined && (
        <p id={`${props.id}-hint`} class="hint">
          {hint}
        </p>
      )}
      <FieldProblem form={form} field={field} />
    </div>
  );
}

/** A Field for a whole number from `min` to `max`: the browser checks the bounds before the API does. */
export function WholeNumberField({
  form,
  field,
  label,
  hint,
  min,
  max,
  required = true,
  value,
  onValue,
}: {
  form: ApiForm;
  field: string;
  label: string;
  hint?: ComponentChildren;
  min: number;
  max: number;
  required?: boolean;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <Field form={form} field={field} label={label} hint={hint}>
      {(props) => (
        <input
          {...props}
          type="number"
          inputMode="numeric"
          required={required}
          min={min}
          max={max}
          step={1}
          value={value}
          onInput={(e) => onValue(valueOf(e))}
        />
      )}
    </Field>
  );
}

/** The refusal no drawn field is named by (a 409, a 403, no server); `lead` says what failed. */
export function FormProblem({ form, lead }: { form: ApiForm; lead?: string }) {
  const { issue } = form;
  if (!issue || form.issueAt) return null;
  return (
    <div class={issue.requiredScope ? undefined : "failure"} role="alert" tabIndex={-1} ref={form.problemRef}>
      {issue.requiredScope ? (
        <NeedsScopeNotice scope={issue.requiredScope} what="This" />
      ) : (
        <p>{lead ? `${lead}: ${issue.text}` : issue.text}</p>
      )}
    </div>
  );
}

/** A form's submit button (disabled, with `busyLabel`, while the form is sent) beside its Cancel. */
export function SubmitOrCancel({
  form,
  label,
  busyLabel,
  onCancel,
}: {
  form: ApiForm;
  label: string;
  busyLabel?: string;
  onCancel: () => void;
}) {
  return (
    <div class="row">
      <button type="submit" class="primary" disabled={form.busy}>
        {form.busy && busyLabel ? busyLabel : label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
