'use client';
// Saves a text shown once (a secret, recovery codes) as a file, made in the browser: nothing is fetched again, so
// the server never has to keep what it showed.
import { useTranslations } from 'use-intl/react';

export function DownloadButton(props: { text: string; fileName: string; label?: string; className?: string }) {
  const t = useTranslations('copy');
  return (
    <button
      type="button"
      className={props.className ?? 'btn btn-secondary mt-2'}
      onClick={() => {
        const url = URL.createObjectURL(new Blob([props.text.endsWith('\n') ? props.text : `${props.text}\n`], { type: 'text/plain;charset=utf-8' }));
        const link = document.createElement('a');
        link.href = url;
        link.download = props.fileName;
        document.body.append(link);
        link.click();
        link.remove();
        URL.revokeObjectURL(url);
      }}
    >
      {props.label ?? t('download')}
    </button>
  );
}
