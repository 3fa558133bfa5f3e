/**
 * A site's goals as a table, with their edit and delete actions for keys holding write:goals.
 * What a goal counts (kind, match, threshold) never changes: only its name and purpose can be
 * edited, and a goal cannot become a smoke-test goal or stop being one (the API answers 422 on
 * `purpose`), so counting something else means a new goal.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Goal } from "../../api/client";

export const KIND_LABELS: Record<Goal["kind"], string> = {
  page: "Page view",
  event: "Event",
  time: "Time on page",
  scroll: "Scroll depth",
};

export const SMOKE_TEST = "smoke-test";

/** The operator's synthetic deploy check: in no report, listed with its deployment markers. */
export function isSmokeTest(goal: Goal): boolean {
  return goal.kind === "event" && goal.purpose === SMOKE_TEST;
}

/** A problem the API named a field for, shown under that field (its id: `${inputId}-error`). */
export function FieldError({ problem, field, inputId }: { problem: ApiProblem | null; field: string; inputId: string }) {
  if (problem?.field !== field) return null;
  return (
    <span id={`${inputId}-error`} class="field-error" role="alert">
      {problem.message}
    </span>
  );
}

/** aria-invalid and aria-describedby for an input, pointing at its hint and any error. */
export function describedBy(problem: ApiProblem | null, field: string, inputId: string, hint = false) {
  const invalid = problem?.field === field;
  const ids = [hint ? `${inputId}-hint` : "", invalid ? `${inputId}-error` : ""].filter(Boolean).join(" ");
  return { "aria-invalid": invalid ? ("true" as const) : undefined, "aria-describedby": ids || undefined };
}

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

type Mode = { goal: string; action: "edit" | "delete" } | null;

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
  const [mode, setMode] = useState<Mode>(null);
  const columns = canWrite ? 6 : 5;
  /** Closes a panel and gives the focus back to the button that opened it. */
  const close = (goal: string, action: "edit" | "delete") => {
    setMode(null);
    setTimeout(() => document.getElementById(`goal-${action}-${goal}`)?.focus());
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
            const open = mode?.goal === goal.id ? mode.action : null;
            return [
              <tr key={goal.id}>
                <th scope="row">{goal.name}</th>
                <td>{KIND_LABELS[goal.kind]}</td>
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
                  <td class="table-actions">
                    <button
                      type="button"
                      id={`goal-edit-${goal.id}`}
                      aria-label={`Edit ${goal.name}`}
                      aria-expanded={open === "edit"}
                      onClick={() => setMode(open === "edit" ? null : { goal: goal.id, action: "edit" })}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="danger"
                      id={`goal-delete-${goal.id}`}
                      aria-label={`Delete ${goal.name}`}
                      aria-expanded={open === "delete"}
                      onClick={() => setMode(open === "delete" ? null : { goal: goal.id, action: "delete" })}
                    >
                      Delete
                    </button>
                  </td>
                )}
              </tr>,
              open && (
                <tr key={`${goal.id}-${open}`} class="table-panel-row">
                  <td colSpan={columns}>
                    {open === "edit" ? (
                      <GoalEditForm
                        site={site}
                        goal={goal}
                        onSaved={(saved) => {
                          onChanged(saved);
                          close(goal.id, "edit");
                        }}
                        onCancel={() => close(goal.id, "edit")}
                      />
                    ) : (
                      <GoalDeleteConfirm site={site} goal={goal} onDeleted={() => onDeleted(goal.id)} onCancel={() => close(goal.id, "delete")} />
                    )}
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
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  // Layout effect: the focus moves before the next keystroke, which could otherwise land in the wrong field.
  useLayoutEffect(() => first.current?.focus(), []);
  const nameId = `goal-${goal.id}-name`;
  const purposeId = `goal-${goal.id}-purpose`;

  const save = async () => {
    const changes: { name?: string; purpose?: string | null } = {};
    if (name.trim() !== goal.name) changes.name = name.trim();
    if ((purpose.trim() || null) !== goal.purpose) changes.purpose = purpose.trim() || null;
    if (changes.name === undefined && changes.purpose === undefined) return onCancel();
    setBusy(true);
    setProblem(null);
    try {
      onSaved(await unwrap(api.PATCH("/api/v1/sites/{id}/goals/{goal}", { params: { path: { id: site, goal: goal.id } }, body: changes })));
    } catch (error) {
      setProblem(error instanceof ApiProblem ? error : new ApiProblem(0, String(error)));
      setBusy(false);
    }
  };

  return (
    <form
      class="table-panel"
      aria-label={`Edit goal ${goal.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      onKeyDown={(event) => event.key === "Escape" && onCancel()}
    >
      <p class="hint">Only the name and purpose can change. To count something else, create a new goal.</p>
      <div class="table-field">
        <label for={nameId}>Name</label>
        <input id={nameId} ref={first} required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} {...describedBy(problem, "name", nameId)} />
        <FieldError problem={problem} field="name" inputId={nameId} />
      </div>
      <div class="table-field">
        <label for={purposeId}>Purpose</label>
        <input id={purposeId} maxLength={100} value={purpose} onInput={(e) => setPurpose((e.target as HTMLInputElement).value)} {...describedBy(problem, "purpose", purposeId, true)} />
        <span id={`${purposeId}-hint`} class="hint">
          {isSmokeTest(goal)
            ? "This is a smoke-test goal and stays one: its purpose stays “smoke-test”."
            : "A free label; empty for none. A goal cannot become a smoke-test goal: create a new event goal for that."}
        </span>
        <FieldError problem={problem} field="purpose" inputId={purposeId} />
      </div>
      {problem && problem.field !== "name" && problem.field !== "purpose" && (
        <p class="failure" role="alert">
          {problem.message}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          Save
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function GoalDeleteConfirm({ site, goal, onDeleted, onCancel }: { site: string; goal: Goal; onDeleted: () => void; onCancel: () => void }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => box.current?.focus(), []);
  const remove = async () => {
    setBusy(true);
    try {
      await unwrap(api.DELETE("/api/v1/sites/{id}/goals/{goal}", { params: { path: { id: site, goal: goal.id } } }));
      onDeleted();
    } catch (error) {
      setProblem(error instanceof ApiProblem ? error : new ApiProblem(0, String(error)));
      setBusy(false);
    }
  };
  return (
    <div class="table-panel" role="group" aria-label={`Delete goal ${goal.name}`} tabIndex={-1} ref={box} onKeyDown={(event) => event.key === "Escape" && onCancel()}>
      <p>Delete “{goal.name}”? Its conversions and alert rules are deleted with it. This cannot be undone.</p>
      {problem && (
        <p class="failure" role="alert">
          {problem.message}
        </p>
      )}
      <div class="row">
        <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
          Yes, delete
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
