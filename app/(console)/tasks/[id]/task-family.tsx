import type { TaskTimeline } from '@/lib/queries/task-timeline';
import { formatCount } from '@/lib/console/format';
import { TaskLink } from '../links';

/**
 * The tasks around this one: the task that started it (its first begin named a parent) and those it started,
 * each linked, so a sub-agent's work is one click from its parent's and back.
 */
export function TaskFamily({ task }: { task: Pick<TaskTimeline, 'budget' | 'subTasks' | 'moreSubTasks'> }) {
  const parent = task.budget?.parentTaskId;
  if (!parent && task.subTasks.length === 0) return null;
  return (
    <div className="mb-3 grid gap-1 text-[13px]" data-testid="task-family">
      {parent ? (
        <p data-testid="task-parent">
          Sub-task of <TaskLink taskId={parent} />
        </p>
      ) : null}
      {task.subTasks.length > 0 ? (
        <div data-testid="task-sub-tasks">
          {task.moreSubTasks
            ? `Started more than ${formatCount(task.subTasks.length)} sub-tasks; the first ${formatCount(task.subTasks.length)}:`
            : `Started ${formatCount(task.subTasks.length)} sub-task${task.subTasks.length === 1 ? '' : 's'}:`}
          <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
            {task.subTasks.map((sub) => (
              <li key={sub.taskId} className="min-w-0">
                <TaskLink taskId={sub.taskId} /> <span className="text-[12px] text-muted">{sub.status}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
