'use client';

import { useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';

/** A new webhook's signing secret, shown this once with a copy button and a warning. */
export function SecretBox({ name, secret }: { name: string; secret: string }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'copied' | 'select' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('copied');
    } catch {
      // No clipboard (an insecure origin, a denied permission): select it for Ctrl+C instead.
      field.current?.select();
      setCopied('select');
    }
  };
  return (
    <div
      role="status"
      className="rounded-lg border border-warn bg-warn-soft p-4 text-[13px]"
      data-testid="channel-secret"
    >
      <p className="font-medium text-warn">
        Channel {name} added. Copy its signing secret now: it is shown only once and cannot be shown again.
      </p>
      <p className="mt-1 text-[12px]">
        The receiver checks each request&apos;s Holdfast-Signature header with it. Lost it? Delete the channel and add
        it again.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <Input
          ref={field}
          readOnly
          value={secret}
          aria-label="Signing secret"
          data-testid="channel-secret-value"
          onFocus={(event) => event.currentTarget.select()}
          className="min-w-0 flex-1 basis-64 font-mono"
        />
        <Button onClick={copy} size="md">
          Copy
        </Button>
        <span role="status" className="text-[12px]">
          {copied === 'copied' ? 'Copied.' : copied === 'select' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
        </span>
      </div>
    </div>
  );
}
