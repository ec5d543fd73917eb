'use client';
// The new organization's name and its address (slug): the slug follows the name until the person edits it, is cut to
// a valid length instead of refused, and is previewed as the console address it will have. What the person typed
// stays when the server refuses, and each error stands next to its field.
import { useActionState, useState } from 'react';
import { slugFromName } from '@/lib/util/slug';
import { createOrganizationAction, type NewOrgState } from './actions';

export function NewOrgForm() {
  const [state, action, pending] = useActionState(createOrganizationAction, { status: 'idle' } as NewOrgState);
  const kept = state.status === 'error' ? state.values : undefined;
  const errors = state.status === 'error' ? state.fieldErrors : {};
  const [name, setName] = useState(kept?.name ?? '');
  const [slug, setSlug] = useState(kept?.slug ?? '');
  const [slugEdited, setSlugEdited] = useState(Boolean(kept?.slug));
  const shownSlug = slugEdited ? slug : slugFromName(name, '');
  const field = (id: 'name' | 'slug') => ({
    id: `org-${id}`,
    'aria-invalid': errors[id] ? true : undefined,
    'aria-describedby': [`org-${id}-hint`, errors[id] ? `org-${id}-error` : ''].filter(Boolean).join(' '),
  });
  return (
    <form action={action} className="grid gap-4" data-testid="new-org" noValidate>
      {errors.form ? (
        <p role="alert" className="alert alert-error" data-testid="form-error">
          {errors.form}
        </p>
      ) : null}
      <div className="grid gap-1">
        <label htmlFor="org-name" className="text-sm font-medium text-slate-800">
          Name
        </label>
        <input {...field('name')} name="name" className="input" value={name} maxLength={80} required onChange={(event) => setName(event.target.value)} />
        <p id="org-name-hint" className="text-xs text-slate-500">
          What people see: on sign-in cards, in invitations, in the console.
        </p>
        {errors.name ? (
          <p id="org-name-error" className="text-sm text-red-700" data-testid="error-name">
            {errors.name}
          </p>
        ) : null}
      </div>
      <div className="grid gap-1">
        <label htmlFor="org-slug" className="text-sm font-medium text-slate-800">
          Address (slug)
        </label>
        <input
          {...field('slug')}
          name="slug"
          className="input"
          value={shownSlug}
          maxLength={64}
          required
          onChange={(event) => {
            setSlugEdited(true);
            setSlug(event.target.value.toLowerCase());
          }}
        />
        <p id="org-slug-hint" className="text-xs text-slate-500" data-testid="slug-preview">
          The console will be at /console/{shownSlug || '…'}. Lowercase letters, digits and hyphens; it never changes.
        </p>
        {errors.slug ? (
          <p id="org-slug-error" className="text-sm text-red-700" data-testid="error-slug">
            {errors.slug}
          </p>
        ) : null}
      </div>
      <div>
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? 'Creating…' : 'Create organization'}
        </button>
      </div>
    </form>
  );
}
