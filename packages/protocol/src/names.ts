import { z } from 'zod';

/**
 * The one rule for the names agents give their work: agents, steps, queues and
 * the agent and step of a retry pool. Names become metric labels, URL path
 * segments, key parts (`<task>/<step>`) and text on every console page, so
 * they are kept plain: no spaces, quotes, slashes, newlines or bidi controls
 * (U+202E would make a step read backwards). Every input schema that takes a
 * name takes it from here; schemas only, so the clients bundle it.
 */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
export const NAME_RULE = 'may contain only letters, digits and _ . : -';
export const NAME_MAX_LENGTH = 100;

const plainName = () =>
  z
    .string()
    .trim()
    .min(1, 'must not be blank')
    .max(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
    .regex(NAME_PATTERN, NAME_RULE);

export const agentName = plainName();
export const stepName = plainName();
export const queueName = plainName();
/** What a step calls (`openai`, `stripe`), stated at begin so that a pause or a breaker can cover every step that calls it. */
export const downstreamName = plainName();

/** A retry pool covers every step of its agent when it names this as its step (ALL_STEPS in the schema). */
export const ALL_STEPS = '*';

/** A retry pool's step: one step's name, or `*` for every step of the agent. */
export const poolStepName = z
  .string()
  .trim()
  .min(1, 'must not be blank (use * for every step of the agent)')
  .max(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
  // A blank step is named once, by min above.
  .refine(
    (step) => step === '' || step === ALL_STEPS || NAME_PATTERN.test(step),
    `must be * (every step) or a step name that ${NAME_RULE}`,
  );
