'use client';
// Copies a text (a command, credentials) to the clipboard, and says so; where the browser refuses, says to select it.
import { useState } from 'react';

export function CopyButton(props: { text: string; label?: string; className?: string }) {
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
      {state === 'copied' ? 'Copied' : state === 'refused' ? 'Select and copy it by hand' : (props.label ?? 'Copy to clipboard')}
    </button>
  );
}
