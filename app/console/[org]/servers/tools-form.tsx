'use client';
// The tools table's one form (issue 58: no form per row): every row's controls are named by the row's tool
// (`level:<tool>`, `permission:<tool>`, `digest:<tool>`), and each button posts what it does to which row in `intent`
// (`approve:<tool>`). The outcome is shown in the row that was acted on. Enter in a row's permission field saves that
// row's permission, never another row's first button (a form's implicit submission would).
import { createContext, startTransition, useActionState, useContext, useState, type ReactNode } from 'react';
import type { ActionState } from '../../_lib/action';
import { SCRIPTED_FORM_METHOD, useScriptReady } from '@/app/_lib/scripted-form';

type Action = (state: ActionState, formData: FormData) => Promise<ActionState>;

const ToolsFormState = createContext<{ state: ActionState; acted?: string; pending: boolean }>({ state: { status: 'idle' }, pending: false });

export function ToolsForm(props: { action: Action; org: string; server: string; testId?: string; children: ReactNode }) {
  const [state, formAction, pending] = useActionState(props.action, { status: 'idle' } as ActionState);
  const [acted, setActed] = useState<string>();
  return (
    <form
      method={SCRIPTED_FORM_METHOD}
      data-testid={props.testId}
      onSubmit={(event) => {
        // Submitted by hand, as ActionForm does: React would reset the form after its action, erasing the rows' choices.
        event.preventDefault();
        const submitter = (event.nativeEvent as SubmitEvent).submitter;
        if (!(submitter instanceof HTMLButtonElement) || submitter.name !== 'intent') return;
        const data = new FormData(event.currentTarget, submitter);
        setActed(submitter.value.slice(submitter.value.indexOf(':') + 1));
        startTransition(() => formAction(data));
      }}
      onKeyDown={(event) => {
        const target = event.target;
        if (event.key !== 'Enter' || !(target instanceof HTMLInputElement)) return;
        event.preventDefault();
        const button = target.dataset.enter ? document.getElementById(target.dataset.enter) : null;
        if (button instanceof HTMLButtonElement && !button.disabled) event.currentTarget.requestSubmit(button);
      }}
    >
      <input type="hidden" name="org" value={props.org} />
      <input type="hidden" name="server" value={props.server} />
      <ToolsFormState.Provider value={{ state, acted, pending }}>{props.children}</ToolsFormState.Provider>
    </form>
  );
}

/** One of a row's buttons: `intent` is `<what>:<tool>`; `label` names the row for assistive technology. */
export function ToolButton(props: { intent: string; id?: string; label: string; variant?: 'primary' | 'secondary'; testId?: string; children: ReactNode }) {
  const { pending } = useContext(ToolsFormState);
  const ready = useScriptReady();
  return (
    <button type="submit" name="intent" value={props.intent} id={props.id} aria-label={props.label} className={`btn btn-${props.variant ?? 'secondary'}`} disabled={pending || !ready} data-testid={props.testId}>
      {props.children}
    </button>
  );
}

/** What the form answered, in the row it was about. */
export function ToolOutcome(props: { tool: string }) {
  const { state, acted } = useContext(ToolsFormState);
  if (acted !== props.tool || state.status === 'idle') return null;
  if (state.status === 'ok') {
    return (
      <p role="status" className="text-sm text-green-800" data-testid="tool-outcome" data-tone="success">
        {state.message}
      </p>
    );
  }
  return (
    <p role="alert" className="text-sm text-red-700" data-testid="tool-outcome" data-tone="error">
      {state.fieldErrors ? Object.values(state.fieldErrors).join(' ') : state.message}
    </p>
  );
}
