// A command to run on the Portico host, shown exactly (selectable) with a copy button.
import { CopyButton } from './copy-button';

export function CliCommand(props: { command: string }) {
  return (
    <span className="my-2 flex flex-wrap items-center gap-2" data-testid="cli-command">
      <code className="rounded bg-slate-100 px-2 py-1 text-xs">{props.command}</code>
      <CopyButton text={props.command} label="Copy command" className="btn btn-secondary" />
    </span>
  );
}
