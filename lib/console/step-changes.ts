import type { SortColumn } from '../filters/steps';
import type { ComparedStepStats, PreviousWindowFigures } from '../queries/step-figures';
import { formatMicros } from './format';

/** Whether a rise in a figure is bad news (retries, failures, spend on them), good news, or neither (volume). */
type RiseMeans = 'worse' | 'better' | 'neither';

/** How a column's figure is compared with the previous window's. */
interface ChangeRule {
  /** 'relative': the change as a share of the previous figure; 'points': a rate's change in percentage points. */
  scale: 'relative' | 'points';
  riseMeans: RiseMeans;
  /** A money figure also shows its change in dollars (the Steps page sorts by retry spend's). */
  dollars?: true;
  figure: (figures: PreviousWindowFigures) => number | null;
}

const rules: Partial<Record<SortColumn, ChangeRule>> = {
  attempts: { scale: 'relative', riseMeans: 'neither', figure: (row) => row.attempts },
  retries: { scale: 'relative', riseMeans: 'worse', figure: (row) => row.retries },
  retryRate: { scale: 'points', riseMeans: 'worse', figure: (row) => row.retryRate },
  firstTrySuccess: { scale: 'points', riseMeans: 'better', figure: (row) => row.firstTrySuccess },
  totalSpendMicros: { scale: 'relative', riseMeans: 'neither', figure: (row) => row.totalSpendMicros },
  retrySpendMicros: { scale: 'relative', riseMeans: 'worse', dollars: true, figure: (row) => row.retrySpendMicros },
  retryShareOfSpend: { scale: 'points', riseMeans: 'worse', figure: (row) => row.retryShareOfSpend },
  failures: { scale: 'relative', riseMeans: 'worse', figure: (row) => row.failures },
  failedSpendMicros: { scale: 'relative', riseMeans: 'worse', figure: (row) => row.failedSpendMicros },
};

/** The columns that show a change against the previous window. */
export const comparedColumns = new Set(Object.keys(rules) as SortColumn[]);

export interface FigureChange {
  /** Compact and signed: "+12 %", "−3.1 pp", "+$1.20 (+12 %)", "new", "±0". */
  text: string;
  /** Said in words beside the number, never by color alone; 'neither' has no word. */
  verdict: 'worse' | 'better' | 'neither';
}

// A non-breaking space keeps a number and its unit on one line in a narrow cell.
const NBSP = '\u00a0';
const MINUS = '\u2212';
const signed = (value: number, digits: number) =>
  `${value > 0 ? '+' : value < 0 ? MINUS : '±'}${Math.abs(value).toFixed(digits)}`;

/**
 * A column's change against the previous window of equal length, or null when there is nothing to compare
 * (the row was not compared, the column has no rule, or either figure is unknown, e.g. no executions).
 * A step without attempts in the previous window has no changes (the table marks the step itself "new": isNewStep);
 * a figure that was 0 then is "new".
 */
export function changeOf(column: SortColumn, row: Partial<ComparedStepStats>): FigureChange | null {
  const rule = rules[column];
  const previous = row.previous;
  if (!rule || !previous) return null;
  if (isNewStep(row)) return null;
  const now = rule.figure(row as PreviousWindowFigures);
  const before = rule.figure(previous);
  if (now === null || before === null) return null;
  const difference = now - before;
  const verdict = difference === 0 || rule.riseMeans === 'neither' ? 'neither' : verdictOf(difference, rule.riseMeans);

  if (rule.scale === 'points') {
    const points = difference * 100;
    // Below the shown precision, a change is no change: "+0.0 pp worse" would be noise.
    if (Math.abs(points) < 0.05) return { text: `±0${NBSP}pp`, verdict: 'neither' };
    return { text: `${signed(points, 1)}${NBSP}pp`, verdict };
  }
  if (difference === 0) return { text: '±0', verdict: 'neither' };
  const relative =
    before === 0
      ? 'new'
      : `${signed((difference / before) * 100, Math.abs(difference / before) < 0.1 ? 1 : 0)}${NBSP}%`;
  if (!rule.dollars) return { text: relative, verdict };
  const dollars = `${difference > 0 ? '+' : MINUS}${formatMicros(Math.abs(difference))}`;
  return { text: `${dollars} (${relative})`, verdict };
}

function verdictOf(difference: number, riseMeans: 'worse' | 'better'): 'worse' | 'better' {
  const rose = difference > 0;
  return rose === (riseMeans === 'worse') ? 'worse' : 'better';
}

/** The step had no attempts in the previous window: every figure is new, said once beside its name. */
export function isNewStep(row: Partial<ComparedStepStats>): boolean {
  return row.previous?.attempts === 0;
}
