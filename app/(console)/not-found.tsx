import { NothingFound } from '@/components/layout/nothing-found';

/**
 * An unknown task, step, key, hold or dead letter (a page calling notFound()), shown
 * inside the console's shell with a 404 status.
 */
export default function ConsoleNotFound() {
  return (
    <NothingFound title="Nothing here">
      <p>
        No task, step, key, hold or dead letter has this address: it may have been mistyped, or kept past its retention.
        Search for it by its id or the start of one.
      </p>
    </NothingFound>
  );
}
