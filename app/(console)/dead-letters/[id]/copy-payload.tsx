'use client';

import { Button } from '@/components/ui/button';
import { useToast } from '@/components/ui/toast';

/** Copies the payload's formatted JSON, and says whether it worked (the clipboard may be refused). */
export function CopyPayload({ json }: { json: string }) {
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(json);
      toast.show('Copied', { tone: 'success' });
    } catch {
      toast.show('Copy failed: the browser refused the clipboard. Select the text and copy it instead.', {
        tone: 'error',
      });
    }
  };
  return (
    <Button onClick={copy} data-testid="copy-payload">
      Copy
    </Button>
  );
}
