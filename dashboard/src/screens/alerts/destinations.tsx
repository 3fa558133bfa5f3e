/** A rule's destinations in its form: 1–5 rows of URL and format, added and removed in place. */
import { useLayoutEffect, useRef } from "preact/hooks";
import type { Schemas } from "../../api/client";
import { Field, FieldProblem, focusField, valueOf, type ApiForm } from "../../ui/field";

export type DestinationFormat = NonNullable<Schemas["AlertRuleCreate"]["destinations"][number]["format"]>;

export interface DestinationDraft {
  /** Stable across removals, so each row keeps its own input. */
  row: number;
  url: string;
  format: DestinationFormat;
}

export const MAX_DESTINATIONS = 5;

let nextRow = 1;

export function newDestination(): DestinationDraft {
  return { row: nextRow++, url: "", format: "standard" };
}

export function DestinationsFieldset({
  form,
  rows,
  onChange,
}: {
  form: ApiForm;
  rows: DestinationDraft[];
  onChange: (rows: DestinationDraft[]) => void;
}) {
  const addButton = useRef<HTMLButtonElement>(null);
  const grew = useRef<"added" | "removed" | null>(null);
  useLayoutEffect(() => {
    // A new row takes the focus; after a removal it goes to "Add destination", which stays put.
    if (grew.current === "added") focusField(form, `destinations.${rows.length - 1}.url`);
    if (grew.current === "removed") addButton.current?.focus();
    grew.current = null;
  }, [rows.length]);
  const change = (row: number, patch: Partial<DestinationDraft>) =>
    onChange(rows.map((d) => (d.row === row ? { ...d, ...patch } : d)));
  return (
    <fieldset class="alert-destinations">
      <legend>Destinations</legend>
      <p class="hint">
        1 to {MAX_DESTINATIONS} webhooks: <code>https://</code> to a public address. <em>Standard</em> sends the signed JSON
        payload; <em>Slack</em>, an unsigned Slack message.
      </p>
      {rows.map((d, i) => (
        <fieldset key={d.row} class="alert-destination">
          <legend>Destination {i + 1}</legend>
          <Field form={form} field={`destinations.${i}.url`} label="URL">
            {(props) => (
              <input
                {...props}
                type="url"
                required
                maxLength={2048}
                placeholder="https://hooks.example.com/wren"
                value={d.url}
                onInput={(e) => change(d.row, { url: valueOf(e) })}
              />
            )}
          </Field>
          <Field form={form} field={`destinations.${i}.format`} label="Format">
            {(props) => (
              <select
                {...props}
                value={d.format}
                onChange={(e) => change(d.row, { format: valueOf(e) as DestinationFormat })}
              >
                <option value="standard">Standard (signed JSON)</option>
                <option value="slack">Slack</option>
              </select>
            )}
          </Field>
          {rows.length > 1 && (
            <button
              type="button"
              onClick={() => {
                grew.current = "removed";
                onChange(rows.filter((other) => other.row !== d.row));
              }}
            >
              Remove destination {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      <FieldProblem form={form} field="destinations" />
      <button
        ref={addButton}
        type="button"
        disabled={rows.length >= MAX_DESTINATIONS}
        onClick={() => {
          grew.current = "added";
          onChange([...rows, newDestination()]);
        }}
      >
        Add destination
      </button>
      {rows.length >= MAX_DESTINATIONS && <p class="hint">A rule sends to at most {MAX_DESTINATIONS} destinations.</p>}
    </fieldset>
  );
}
