import Link from 'next/link';
import type { ReactNode } from 'react';
import { VisibleText } from '@/components/ui/visible-text';

/** A task's timeline. */
export const taskHref = (taskId: string) => `/tasks/${encodeURIComponent(taskId)}`;

/** A step's detail page (each name encoded: a step may hold a slash). */
export const stepHref = (agent: string, step: string) =>
  `/steps/${encodeURIComponent(agent)}/${encodeURIComponent(step)}`;

const linkClass = 'text-accent hover:underline [overflow-wrap:anywhere]';

/** A task id, linked to its timeline. */
export function TaskLink({ taskId, children }: { taskId: string; children?: ReactNode }) {
  return (
    <Link href={taskHref(taskId)} className={linkClass}>
      {children ?? <VisibleText text={taskId} />}
    </Link>
  );
}

/** A step name, linked to its detail when its agent is known (a step is named within its agent). */
export function StepLink({ agent, step }: { agent: string | null | undefined; step: string }) {
  if (!agent) return <VisibleText text={step} />;
  return (
    <Link href={stepHref(agent, step)} className={linkClass}>
      <VisibleText text={step} />
    </Link>
  );
}
