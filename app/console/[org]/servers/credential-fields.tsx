'use client';
// The credential Portico sends an upstream: none, or a static header (an API key, a bearer token). The value is a
// password field: sealed when saved and never shown again (lib/gateway/servers.ts), so nothing here reads it back.
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { Field, Select } from '../../_components/fields';

export function CredentialHeaderFields() {
  const t = useTranslations('console.servers');
  return (
    <>
      <Field label={t('credential.header')} name="credentialHeader" required maxLength={64} autoComplete="off" spellCheck={false} placeholder="Authorization" hint={t('credential.headerHint')} />
      <Field label={t('credential.value')} name="credentialValue" type="password" required maxLength={4096} autoComplete="off" spellCheck={false} hint={t('credential.valueHint')} />
    </>
  );
}

/** The new-server form's choice: no credential, or a header (its fields shown only then). */
export function CredentialChoice() {
  const t = useTranslations('console.servers');
  const [kind, setKind] = useState('none');
  return (
    <>
      <Select
        label={t('new.credential')}
        name="credential"
        value={kind}
        onChange={setKind}
        options={[
          { value: 'none', label: t('new.credentialNone') },
          { value: 'header', label: t('new.credentialHeader') },
        ]}
      />
      {kind === 'header' ? <CredentialHeaderFields /> : null}
    </>
  );
}
