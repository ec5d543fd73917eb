'use client';
// The console's form fields. Inside an ActionForm each reads the server's refusal for its own name: the message stands
// under the field, tied to it (aria-describedby) and marking it (aria-invalid); the form's alert keeps the summary.
import { createContext, useContext, type InputHTMLAttributes, type ReactNode } from 'react';

/** The field errors of the form around (ActionForm provides them). */
export const FieldErrorsContext = createContext<Record<string, string> | undefined>(undefined);

function useFieldError(name: string): string | undefined {
  return useContext(FieldErrorsContext)?.[name];
}

/** What ties a control to its hint and its error. */
function described(id: string, hint: string | undefined, error: string | undefined) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { 'aria-invalid': error ? true : undefined, 'aria-describedby': ids || undefined } as const;
}

/** The label, control, hint and error of every console field: the label is always tied to its control (screen readers, tests). */
function Labelled(props: { id: string; label: string; hint?: string; error?: string; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <label htmlFor={props.id} className="text-sm font-medium text-slate-800">
        {props.label}
      </label>
      {props.children}
      {props.hint ? (
        <p id={`${props.id}-hint`} className="text-xs text-slate-500">
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p id={`${props.id}-error`} className="text-sm text-red-700" data-testid={`field-error-${props.id}`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled input. */
export function Field(props: InputHTMLAttributes<HTMLInputElement> & { label: string; name: string; hint?: string }) {
  const { label, hint, id, ...input } = props;
  const inputId = id ?? `field-${input.name}`;
  const error = useFieldError(input.name);
  return (
    <Labelled id={inputId} label={label} hint={hint} error={error}>
      <input id={inputId} className="input" {...input} {...described(inputId, hint, error)} />
    </Labelled>
  );
}

export function Select(props: {
  label: string;
  name: string;
  options: readonly { value: string; label: string }[];
  defaultValue?: string;
  id?: string;
  /** Controlled: the form keeps showing the chosen value after it is saved (a form action resets uncontrolled fields). */
  value?: string;
  onChange?: (value: string) => void;
}) {
  const inputId = props.id ?? `field-${props.name}`;
  const control = props.value !== undefined ? { value: props.value, onChange: (event: { target: { value: string } }) => props.onChange?.(event.target.value) } : { defaultValue: props.defaultValue };
  const error = useFieldError(props.name);
  return (
    <Labelled id={inputId} label={props.label} error={error}>
      <select id={inputId} name={props.name} {...control} className="input" {...described(inputId, undefined, error)}>
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

/** A labelled multi-line input. */
export function TextArea(props: { label: string; name: string; hint?: string; rows?: number; required?: boolean; placeholder?: string; id?: string; defaultValue?: string; maxLength?: number }) {
  const inputId = props.id ?? `field-${props.name}`;
  const error = useFieldError(props.name);
  return (
    <Labelled id={inputId} label={props.label} hint={props.hint} error={error}>
      <textarea id={inputId} name={props.name} rows={props.rows ?? 3} required={props.required} placeholder={props.placeholder} defaultValue={props.defaultValue} maxLength={props.maxLength} className="input font-mono text-sm" {...described(inputId, props.hint, error)} />
    </Labelled>
  );
}

/** The server's refusal for a control that is not one of the fields above (a group of checkboxes): shown where it stands. */
export function FieldError(props: { name: string; id: string }) {
  const error = useFieldError(props.name);
  return error ? (
    <p id={props.id} className="text-sm text-red-700" data-testid={`field-error-${props.name}`}>
      {error}
    </p>
  ) : null;
}
