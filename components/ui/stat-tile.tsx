export function StatTile({ label, value, hint, testId }: { label: string; value: string; hint?: string; testId?: string }) {
  return (
    <div className="rounded-lg border border-line bg-surface px-4 py-3" title={hint}>
      <div className="text-[12px] text-muted">{label}</div>
      <div data-testid={testId} className="mt-1 text-xl font-semibold tabular-nums tracking-tight">
        {value}
      </div>
    </div>
  );
}
