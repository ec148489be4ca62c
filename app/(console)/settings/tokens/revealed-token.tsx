'use client';

import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';

interface RevealedTokens {
  /** Tokens revoked from this page since it loaded: a secret shown for one of them is taken away. */
  revoked: ReadonlySet<number>;
  markRevoked: (tokenId: number) => void;
}

const RevealedTokensContext = createContext<RevealedTokens>({ revoked: new Set(), markRevoked: () => {} });

/** Links the create form's one-time secret to the list's Revoke buttons. */
export function RevealedTokensProvider({ children }: { children: ReactNode }) {
  const [revoked, setRevoked] = useState<ReadonlySet<number>>(() => new Set());
  const markRevoked = useCallback((tokenId: number) => setRevoked((before) => new Set(before).add(tokenId)), []);
  const value = useMemo(() => ({ revoked, markRevoked }), [revoked, markRevoked]);
  return <RevealedTokensContext value={value}>{children}</RevealedTokensContext>;
}

export function useRevealedTokens(): RevealedTokens {
  return useContext(RevealedTokensContext);
}
