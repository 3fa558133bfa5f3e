/** The Goal field of the alert form: a choice of the site's goals, or a goal id when this key cannot list them. */
import type { Goal } from "../../api/client";
import { Field, valueOf, type ApiForm } from "../../ui/field";
import { isSmokeTest } from "../goals/kinds";

export function GoalField({
  form,
  goals,
  value,
  onChange,
}: {
  form: ApiForm;
  /** null: this key cannot list goals (read:sites), so the goal is given by id. */
  goals: Goal[] | null;
  value: string;
  onChange: (id: string) => void;
}) {
  if (goals === null) {
    return (
      <Field
        form={form}
        field="goal_id"
        label="Goal"
        hint="The goal's id (goal_…): this key cannot list goals, that needs read:sites."
      >
        {(props) => (
          <input
            {...props}
            required
            spellcheck={false}
            placeholder="goal_…"
            value={value}
            onInput={(e) => onChange(valueOf(e))}
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
    >
      {(props) => (
        <select {...props} required value={value} onChange={(e) => onChange(valueOf(e))}>
          <option value="">Choose a goal</option>
          {goals.map((goal) => (
            <option key={goal.id} value={goal.id}>
              {goal.name}
              {isSmokeTest(goal) ? " (smoke test)" : ""}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
