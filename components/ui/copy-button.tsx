'use client';

import { Button } from '@/components/ui/button';
import { useToast } from '@/components/ui/toast';

/**
 * Copies `text` to the clipboard and says whether it worked (the browser may refuse the clipboard: then the
 * person is told to select the text instead). `label` names what is copied, for screen readers and the toast.
 */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.show(`${label} copied`, { tone: 'success' });
    } catch {
      toast.show('Copy failed: the browser refused the clipboard. Select the text and copy it instead.', {
        tone: 'error',
      });
    }
  };
  return (
    <Button onClick={copy} aria-label={`Copy ${label.toLowerCase()}`} data-testid={testId}>
      Copy
    </Button>
  );
}
