'use client';
// The new organization's name and its address (slug): the slug follows the name until the person edits it, is cut to
// a valid length instead of refused, and is previewed as the console address it will have. What the person typed
// stays when the server refuses, and each error stands next to its field.
import { useActionState } from 'react';
import { useTranslations } from 'use-intl/react';
import { FieldErrorsContext } from '../../_components/fields';
import { NameAndSlugFields } from '../../_components/name-and-slug';
import { createOrganizationAction, type NewOrgState } from './actions';

export function NewOrgForm() {
  const t = useTranslations('orgs.form');
  const [state, action, pending] = useActionState(createOrganizationAction, { status: 'idle' } as NewOrgState);
  const kept = state.status === 'error' ? state.values : undefined;
  const errors = state.status === 'error' ? state.fieldErrors : {};
  return (
    <form action={action} className="grid gap-4" data-testid="new-org" noValidate>
      {errors.form ? (
        <p role="alert" className="alert alert-error" data-testid="form-error">
          {errors.form}
        </p>
      ) : null}
      <FieldErrorsContext.Provider value={errors}>
        <NameAndSlugFields
          idPrefix="org"
          nameHint={t('nameHint')}
          preview={t('preview', { slug: '{slug}' })}
          fallback="…"
          initial={kept}
        />
      </FieldErrorsContext.Provider>
      <div>
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? t('creating') : t('create')}
        </button>
      </div>
    </form>
  );
}
