'use client';
// Copies a text (a command, credentials) to the clipboard, and says so; where the browser refuses, says to select it.
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';

export function CopyButton(props: { text: string; label?: string; className?: string }) {
  const t = useTranslations('copy');
  const [state, setState] = useState<'idle' | 'copied' | 'refused'>('idle');
  return (
    <button
      type="button"
      className={props.className ?? 'btn btn-secondary mt-2'}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(props.text);
          setState('copied');
        } catch {
          setState('refused');
        }
      }}
    >
      {state === 'copied' ? t('copied') : state === 'refused' ? t('refused') : (props.label ?? t('toClipboard'))}
    </button>
  );
}
