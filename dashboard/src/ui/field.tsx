/**
 * Form fields that show the API's 422 next to the field it names: the control is marked
 * invalid and described by the problem, and the form moves the focus there. Generic; the
 * Keys screen's form uses it too.
 */
import type { ComponentChildren } from "preact";
import type { ApiProblem } from "../api/client";

/** A refusal: the form field it names (dotted, as the API names it), or null for the whole form. */
export interface FieldIssue {
  field: string | null;
  text: string;
}

/**
 * The field a problem names, and its words without the "field: " the API puts first. A
 * destination URL the webhook rules refuse comes as field "url", its position in the message
 * ("destinations[1].url: …") and in `pointer`, which ApiProblem does not keep.
 */
export function fieldIssue(problem: ApiProblem): FieldIssue {
  let field = problem.field ?? null;
  const position = /^destinations\[(\d+)\]\.url: /.exec(problem.message);
  if (field === "url" && position) field = `destinations.${position[1]}.url`;
  const text = field ? problem.message.replace(/^[\w.[\]-]+: /, "") : problem.message;
  return { field, text: text.charAt(0).toUpperCase() + text.slice(1) };
}

export function fieldId(form: string, field: string): string {
  return `${form}-${field.replace(/[^\w-]/g, "-")}`;
}

export interface ControlProps {
  id: string;
  "aria-invalid"?: "true";
  "aria-describedby"?: string;
}

/** The attributes that tie a control to its hint and to its problem. */
export function controlProps(form: string, field: string, issue: FieldIssue | null, hinted: boolean): ControlProps {
  const id = fieldId(form, field);
  const invalid = issue?.field === field;
  const describedBy = [hinted ? `${id}-hint` : "", invalid ? `${id}-problem` : ""].filter(Boolean).join(" ");
  return { id, "aria-invalid": invalid ? "true" : undefined, "aria-describedby": describedBy || undefined };
}

export function FieldProblem({ form, field, issue }: { form: string; field: string; issue: FieldIssue | null }) {
  if (issue?.field !== field) return null;
  return (
    <p id={`${fieldId(form, field)}-problem`} class="ak-problem">
      {issue.text}
    </p>
  );
}

/** A labelled control with its hint and problem; `children` draws the control with the props given. */
export function Field({
  form,
  field,
  label,
  hint,
  issue,
  children,
}: {
  form: string;
  field: string;
  label: string;
  hint?: ComponentChildren;
  issue: FieldIssue | null;
  children: (props: ControlProps) => ComponentChildren;
}) {
  const props = controlProps(form, field, issue, hint !== undefined);
  return (
    <div class="ak-field">
      <label for={props.id}>{label}</label>
      {children(props)}
      {hint !== undefined && (
        <p id={`${props.id}-hint`} class="hint">
          {hint}
        </p>
      )}
      <FieldProblem form={form} field={field} issue={issue} />
    </div>
  );
}

/**
 * Moves the focus to the field a refusal names; false when no control has that id. The forms
 * call it from a layout effect, so the focus is there before the next key press.
 */
export function focusField(form: string, field: string): boolean {
  const control = document.getElementById(fieldId(form, field));
  control?.focus();
  return control !== null;
}
