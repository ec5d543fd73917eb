'use client';
// A command to run on the Portico host, shown exactly (selectable) with a copy button.
import { useTranslations } from 'use-intl/react';
import { CopyButton } from './copy-button';

export function CliCommand(props: { command: string }) {
  const t = useTranslations('copy');
  return (
    <span className="my-2 flex flex-wrap items-center gap-2" data-testid="cli-command">
      <code className="rounded bg-slate-100 px-2 py-1 text-xs">{props.command}</code>
      <CopyButton text={props.command} label={t('command')} className="btn btn-secondary" />
    </span>
  );
}
