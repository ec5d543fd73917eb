import type { InputHTMLAttributes, ReactNode } from 'react';

/** The label, control and hint of every console field: the label is always tied to its control (screen readers, tests). */
function Labelled(props: { id: string; label: string; hint?: string; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <label htmlFor={props.id} className="text-sm font-medium text-slate-800">
        {props.label}
      </label>
      {props.children}
      {props.hint ? <p className="text-xs text-slate-500">{props.hint}</p> : null}
    </div>
  );
}

/** A labelled input. */
export function Field(props: InputHTMLAttributes<HTMLInputElement> & { label: string; name: string; hint?: string }) {
  const { label, hint, id, ...input } = props;
  const inputId = id ?? `field-${input.name}`;
  return (
    <Labelled id={inputId} label={label} hint={hint}>
      <input id={inputId} className="input" {...input} />
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
  return (
    <Labelled id={inputId} label={props.label}>
      <select id={inputId} name={props.name} {...control} className="input">
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
export function TextArea(props: { label: string; name: string; hint?: string; rows?: number; required?: boolean; placeholder?: string; id?: string }) {
  const inputId = props.id ?? `field-${props.name}`;
  return (
    <Labelled id={inputId} label={props.label} hint={props.hint}>
      <textarea id={inputId} name={props.name} rows={props.rows ?? 3} required={props.required} placeholder={props.placeholder} className="input font-mono text-sm" />
    </Labelled>
  );
}
