/**
 * A detail panel opened from a table row (a rule's history, a key's calls): its heading takes
 * the focus when it opens or shows another row, so keyboard and screen-reader users land on
 * it; Refresh reads again, and the close button returns to the list.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";

export function DetailPanel({
  id,
  class: className,
  title,
  subject,
  closeLabel,
  onRefresh,
  onClose,
  children,
}: {
  id: string;
  class: string;
  title: ComponentChildren;
  /** What the panel shows (a row's id): the focus moves to the heading when it changes. */
  subject: string;
  closeLabel: string;
  onRefresh: () => void;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [subject]);
  return (
    <section id={id} class={className} aria-labelledby={`${id}-title`}>
      <div class="screen-head">
        <h2 id={`${id}-title`} tabIndex={-1} ref={heading}>
          {title}
        </h2>
        <div class="row">
          <button type="button" onClick={onRefresh}>
            Refresh
          </button>
          <button type="button" onClick={onClose}>
            {closeLabel}
          </button>
        </div>
      </div>
      {children}
    </section>
  );
}
