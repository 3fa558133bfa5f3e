/** The Goal field of the alert form: a choice of the site's goals, or a goal id when this key cannot list them. */
import type { Goal } from "../../api/client";
import { Field, type FieldIssue } from "../../ui/field";

export function isSmokeTestGoal(goal: Goal): boolean {
  return goal.kind === "event" && goal.purpose === "smoke-test";
}

export function GoalField({
  form,
  goals,
  value,
  issue,
  onChange,
}: {
  form: string;
  /** null: this key cannot list goals (read:sites), so the goal is given by id. */
  goals: Goal[] | null;
  value: string;
  issue: FieldIssue | null;
  onChange: (id: string) => void;
}) {
  if (goals === null) {
    return (
      <Field
        form={form}
        field="goal_id"
        label="Goal"
        hint="The goal's id (goal_…): this key cannot list goals, that needs read:sites."
        issue={issue}
      >
        {(props) => (
          <input
            {...props}
            required
            spellcheck={false}
            placeholder="goal_…"
            value={value}
            onInput={(e) => onChange((e.target as HTMLInputElement).value)}
          />
        )}
      </Field>
    );
  }
  return (
    <Field
      form={form}
      field="goal_id"
      label="Goal"
      hint={goals.length === 0 ? "This site has no goals yet: add one on the Goals & funnels tab first." : undefined}
      issue={issue}
    >
      {(props) => (
        <select {...props} required value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
          <option value="">Choose a goal</option>
          {goals.map((goal) => (
            <option key={goal.id} value={goal.id}>
              {goal.name}
              {isSmokeTestGoal(goal) ? " (smoke test)" : ""}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
