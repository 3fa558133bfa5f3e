/**
 * A site's goals as a table, with their edit and delete actions for keys holding write:goals.
 * What a goal counts (kind, match, threshold) never changes: only its name and purpose can be
 * edited, and a goal cannot become a smoke-test goal or stop being one (the API answers 422 on
 * `purpose`), so counting something else means a new goal.
 */
import { useLayoutEffect, useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Goal } from "../../api/client";
import { ConfirmButton } from "../../ui/confirm";
import { Field, focusField, FormProblem, SubmitOrCancel, useApiForm, valueOf } from "../../ui/field";
import { Failure } from "../../ui/states";
import { GOAL_KINDS, isSmokeTest } from "./kinds";

function threshold(goal: Goal) {
  if (goal.kind === "time") return `${goal.threshold} s`;
  if (goal.kind === "scroll") return `${goal.threshold} %`;
  return (
    <>
      <span aria-hidden="true">—</span>
      <span class="sr-only">none</span>
    </>
  );
}

export function GoalsTable({
  site,
  goals,
  canWrite,
  onChanged,
  onDeleted,
}: {
  site: string;
  goals: readonly Goal[];
  canWrite: boolean;
  onChanged: (goal: Goal) => void;
  onDeleted: (id: string) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const columns = canWrite ? 6 : 5;
  /** Closes the edit panel and gives the focus back to the button that opened it. */
  const close = (goal: string) => {
    setEditing(null);
    setTimeout(() => document.getElementById(`goal-edit-${goal}`)?.focus());
  };
  return (
    <div class="table-wrap">
      <table class="table-goals">
        <caption>Goals of this site</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Match</th>
            <th scope="col">Threshold</th>
            <th scope="col">Purpose</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {goals.map((goal) => {
            const open = editing === goal.id;
            return [
              <tr key={goal.id}>
                <th scope="row">{goal.name}</th>
                <td>{GOAL_KINDS[goal.kind].label}</td>
                <td>
                  <code>{goal.match}</code>
                </td>
                <td>{threshold(goal)}</td>
                <td>
                  {isSmokeTest(goal) ? (
                    <span class="badge table-smoke">smoke test (shown with deployments)</span>
                  ) : (
                    (goal.purpose ?? <span class="muted">none</span>)
                  )}
                </td>
                {canWrite && (
                  <td>
                    <div class="table-actions">
                      <button
                        type="button"
                        id={`goal-edit-${goal.id}`}
                        aria-label={`Edit ${goal.name}`}
                        aria-expanded={open}
                        onClick={() => setEditing(open ? null : goal.id)}
                      >
                        Edit
                      </button>
                      <DeleteGoal site={site} goal={goal} onDeleted={() => onDeleted(goal.id)} />
                    </div>
                  </td>
                )}
              </tr>,
              open && (
                <tr key={`${goal.id}-edit`} class="table-panel-row">
                  <td colSpan={columns}>
                    <GoalEditForm
                      site={site}
                      goal={goal}
                      onSaved={(saved) => {
                        onChanged(saved);
                        close(goal.id);
                      }}
                      onCancel={() => close(goal.id)}
                    />
                  </td>
                </tr>
              ),
            ];
          })}
        </tbody>
      </table>
    </div>
  );
}

function GoalEditForm({ site, goal, onSaved, onCancel }: { site: string; goal: Goal; onSaved: (goal: Goal) => void; onCancel: () => void }) {
  const [name, setName] = useState(goal.name);
  const [purpose, setPurpose] = useState(goal.purpose ?? "");
  const form = useApiForm({
    id: `goal-${goal.id}`,
    fields: ["name", "purpose"],
    async send() {
      const changes: { name?: string; purpose?: string | null } = {};
      if (name.trim() !== goal.name) changes.name = name.trim();
      if ((purpose.trim() || null) !== goal.purpose) changes.purpose = purpose.trim() || null;
      if (changes.name === undefined && changes.purpose === undefined) return null;
      return unwrap(api.PATCH("/api/v1/sites/{id}/goals/{goal}", { params: { path: { id: site, goal: goal.id } }, body: changes }));
    },
    // Nothing changed, nothing sent: the same as Cancel.
    done: (saved) => (saved ? onSaved(saved) : onCancel()),
  });
  // Layout effect: the focus moves before the next keystroke, which could otherwise land in the wrong field.
  useLayoutEffect(() => void focusField(form, "name"), []);

  return (
    <form
      class="stack table-panel"
      aria-label={`Edit goal ${goal.name}`}
      onSubmit={form.onSubmit}
      onKeyDown={(event) => event.key === "Escape" && onCancel()}
    >
      <p class="hint">Only the name and purpose can change. To count something else, create a new goal.</p>
      <Field form={form} field="name" label="Name">
        {(props) => <input {...props} required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />}
      </Field>
      <Field
        form={form}
        field="purpose"
        label="Purpose"
        hint={
          isSmokeTest(goal)
            ? "This is a smoke-test goal and stays one: its purpose stays “smoke-test”."
            : "A free label; empty for none. A goal cannot become a smoke-test goal: create a new event goal for that."
        }
      >
        {(props) => <input {...props} maxLength={100} value={purpose} onInput={(e) => setPurpose(valueOf(e))} />}
      </Field>
      <FormProblem form={form} />
      <SubmitOrCancel form={form} label="Save" onCancel={onCancel} />
    </form>
  );
}

/** Delete, asked in place; a refusal stays under the button. */
function DeleteGoal({ site, goal, onDeleted }: { site: string; goal: Goal; onDeleted: () => void }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const remove = () => {
    setProblem(null);
    return unwrap(api.DELETE("/api/v1/sites/{id}/goals/{goal}", { params: { path: { id: site, goal: goal.id } } })).then(
      onDeleted,
      (error: unknown) => setProblem(ApiProblem.from(error)),
    );
  };
  return (
    <>
      <ConfirmButton
        label="Delete"
        ariaLabel={`Delete ${goal.name}`}
        question={`Delete “${goal.name}”? Its conversions and alert rules are deleted with it. This cannot be undone.`}
        confirmLabel="Yes, delete"
        busyLabel="Deleting…"
        onConfirm={remove}
      />
      {problem && <Failure problem={problem} />}
    </>
  );
}
