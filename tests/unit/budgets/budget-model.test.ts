import { describe, expect, it } from 'vitest';
import { budgetModelOf, periodWords } from '../../../packages/protocol/src/inputs/spend-budget-input';

describe('a model as budgets count it', () => {
  it('drops case and a dated snapshot suffix, whichever provider dates it', () => {
    expect(budgetModelOf('GPT-4o-mini')).toBe('gpt-4o-mini');
    expect(budgetModelOf('gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini');
    expect(budgetModelOf('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet');
    expect(budgetModelOf('claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5');
    expect(budgetModelOf(' meta-llama/Llama-3.1-70B ')).toBe('meta-llama/llama-3.1-70b');
  });

  it('keeps what is not a date: a version, a size, another model of the family', () => {
    expect(budgetModelOf('gpt-4o')).toBe('gpt-4o');
    expect(budgetModelOf('gpt-4-0613')).toBe('gpt-4-0613');
    expect(budgetModelOf('gemini-2.0-flash-001')).toBe('gemini-2.0-flash-001');
    expect(budgetModelOf('o1-2024-12')).toBe('o1-2024-12');
  });
});

describe("a budget's period in words", () => {
  it('names calendar, rolling and custom periods', () => {
    expect(periodWords({ period: 'day' })).toBe('a UTC day');
    expect(periodWords({ period: 'rolling_hour' })).toBe('the last hour (rolling)');
    expect(periodWords({ period: 'custom', resetEveryHours: 168 })).toBe('every 7 days');
    expect(periodWords({ period: 'custom', resetEveryHours: 24 })).toBe('every day');
    expect(periodWords({ period: 'custom', resetEveryHours: 6 })).toBe('every 6 hours');
    expect(periodWords({ period: 'custom', resetEveryHours: 1 })).toBe('every hour');
  });
});
