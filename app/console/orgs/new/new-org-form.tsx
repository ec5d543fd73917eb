'use client';
// The new organization's name and its address (slug): the slug follows the name until the person edits it, is cut to
// a valid length instead of refused, and is previewed as the console address it will have. What the person typed
// stays when the server refuses, and each error stands next to its field.
import { useActionState, useState } from 'react';
import { slugFromName } from '@/lib/util/slug';
import { Field, FieldErrorsContext } from '../../_components/fields';
import { createOrganizationAction, type NewOrgState } from './actions';

export function NewOrgForm() {
  const [state, action, pending] = useActionState(createOrganizationAction, { status: 'idle' } as NewOrgState);
  const kept = state.status === 'error' ? state.values : undefined;
  const errors = state.status === 'error' ? state.fieldErrors : {};
  const [name, setName] = useState(kept?.name ?? '');
  const [slug, setSlug] = useState(kept?.slug ?? '');
  const [slugEdited, setSlugEdited] = useState(Boolean(kept?.slug));
  const shownSlug = slugEdited ? slug : slugFromName(name, '');
  return (
    <form action={action} className="grid gap-4" data-testid="new-org" noValidate>
      {errors.form ? (
        <p role="alert" className="alert alert-error" data-testid="form-error">
          {errors.form}
        </p>
      ) : null}
      <FieldErrorsContext.Provider value={errors}>
        <Field id="org-name" label="Name" name="name" value={name} maxLength={80} required onChange={(event) => setName(event.target.value)} hint="What people see: on sign-in cards, in invitations, in the console." />
        <Field
          id="org-slug"
          label="Address (slug)"
          name="slug"
          value={shownSlug}
          maxLength={64}
          required
          onChange={(event) => {
            setSlugEdited(true);
            setSlug(event.target.value.toLowerCase());
          }}
          hint={`The console will be at /console/${shownSlug || '…'}. Lowercase letters, digits and hyphens; it never changes.`}
        />
      </FieldErrorsContext.Provider>
      <div>
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? 'Creating…' : 'Create organization'}
        </button>
      </div>
    </form>
  );
}
