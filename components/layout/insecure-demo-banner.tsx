import { getEnvironment, isInsecureDemo } from '@holdfast/engine/env';

/** On every page while demo sign-in runs where others may reach it (HOLDFAST_INSECURE_DEMO=1). */
export function InsecureDemoBanner() {
  if (!isInsecureDemo(getEnvironment())) return null;
  return (
    <div
      role="alert"
      data-testid="insecure-demo-banner"
      className="bg-danger-soft px-4 py-2 text-center text-[13px] font-medium text-danger"
    >
      Insecure demo: anyone who can reach this address can sign in as the admin (HOLDFAST_INSECURE_DEMO=1). Do not keep
      real data here.
    </div>
  );
}
