import type { InputHTMLAttributes } from 'react';

/** A labelled input: the label is always tied to its control, for screen readers and for tests. */
export function Field(props: InputHTMLAttributes<HTMLInputElement> & { label: string; name: string; hint?: string }) {
  const { label, hint, id, ...input } = props;
  const inputId = id ?? `field-${input.name}`;
  return (
    <div className="grid gap-1">
      <label htmlFor={inputId} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      <input id={inputId} className="input" {...input} />
      {hint ? <p className="text-xs text-slate-500">{hint}</p> : null}
    </div>
  );
}

export function Select(props: { label: string; name: string; options: readonly { value: string; label: string }[]; defaultValue?: string; id?: string }) {
  const inputId = props.id ?? `field-${props.name}`;
  return (
    <div className="grid gap-1">
      <label htmlFor={inputId} className="text-sm font-medium text-slate-800">
        {props.label}
      </label>
      <select id={inputId} name={props.name} defaultValue={props.defaultValue} className="input">
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A labelled multi-line input. */
export function TextArea(props: { label: string; name: string; hint?: string; rows?: number; required?: boolean; placeholder?: string; id?: string }) {
  const inputId = props.id ?? `field-${props.name}`;
  return (
    <div className="grid gap-1">
      <label htmlFor={inputId} className="text-sm font-medium text-slate-800">
        {props.label}
      </label>
      <textarea id={inputId} name={props.name} rows={props.rows ?? 3} required={props.required} placeholder={props.placeholder} className="input font-mono text-sm" />
      {props.hint ? <p className="text-xs text-slate-500">{props.hint}</p> : null}
    </div>
  );
}
