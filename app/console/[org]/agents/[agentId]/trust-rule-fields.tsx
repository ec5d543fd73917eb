'use client';
// The trust rule form's fields. The kind of issuer decides what a person names: a Kubernetes service account, a
// SPIFFE ID, a CI repository (and branch), or a subject and claims of any OIDC issuer; only the chosen kind's fields
// are shown, in a group named by the kind, so a field of another kind cannot be filled by mistake. The issuer, its
// keys (a JWKS URL or the keys themselves: one of the two) and the audience are the same for every kind.
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { Field, Select, TextArea } from '../../../_components/fields';

const KINDS = ['kubernetes', 'spiffe', 'ci', 'generic'] as const;
type Kind = (typeof KINDS)[number];

/** `porticoIssuer`: the audience a rule without its own accepts, named in the audience's hint. */
export function TrustRuleFields(props: { agentId: string; porticoIssuer: string }) {
  const t = useTranslations('console.agent');
  const [kind, setKind] = useState<Kind>('kubernetes');
  const id = (name: string) => `rule-${name}`;
  const noAutofill = { autoComplete: 'off', spellCheck: false } as const;
  return (
    <>
      <input type="hidden" name="agentId" value={props.agentId} />
      <Field id={id('name')} label={t('federation.name')} name="name" required maxLength={80} hint={t('federation.nameHint')} autoComplete="off" />
      <Select
        id={id('kind')}
        label={t('federation.kind')}
        name="kind"
        value={kind}
        onChange={(value) => setKind(KINDS.find((known) => known === value) ?? 'kubernetes')}
        options={KINDS.map((value) => ({ value, label: t(`federation.kinds.${value}`) }))}
      />
      <Field id={id('issuer')} label={t('federation.issuer')} name="issuer" required maxLength={500} hint={t('federation.issuerHint')} {...noAutofill} />
      <fieldset className="grid min-w-0 gap-3 rounded-md border border-slate-200 p-3" data-kind={kind}>
        <legend className="px-1 text-sm font-semibold text-slate-800">{t(`federation.kinds.${kind}`)}</legend>
        {kind === 'kubernetes' ? (
          <>
            <p className="text-xs text-slate-500">{t('federation.kubernetesHint')}</p>
            <Field id={id('namespace')} label={t('federation.namespace')} name="namespace" required maxLength={63} {...noAutofill} />
            <Field id={id('serviceAccount')} label={t('federation.serviceAccount')} name="serviceAccount" required maxLength={253} {...noAutofill} />
          </>
        ) : kind === 'spiffe' ? (
          <Field id={id('spiffeId')} label={t('federation.spiffeId')} name="spiffeId" required maxLength={2300} placeholder="spiffe://example.org/ns/prod/sa/worker" hint={t('federation.spiffeIdHint')} {...noAutofill} />
        ) : kind === 'ci' ? (
          <>
            <Field id={id('repository')} label={t('federation.repository')} name="repository" required maxLength={600} placeholder="acme/rockets" hint={t('federation.repositoryHint')} {...noAutofill} />
            <Field id={id('ref')} label={t('federation.ref')} name="ref" maxLength={500} placeholder="refs/heads/main" hint={t('federation.refHint')} {...noAutofill} />
          </>
        ) : (
          <Field id={id('subject')} label={t('federation.subject')} name="subject" maxLength={500} hint={t('federation.subjectHint')} {...noAutofill} />
        )}
        {/* Any kind may ask for more claims; for another issuer they may be all it asks (with or without a subject). */}
        <TextArea id={id('claims')} label={kind === 'generic' ? t('federation.claims') : t('federation.moreClaims')} name="claims" rows={3} maxLength={6000} placeholder="environment=production" hint={t('federation.claimsHint')} />
      </fieldset>
      <fieldset className="grid min-w-0 gap-3 rounded-md border border-slate-200 p-3">
        <legend className="px-1 text-sm font-semibold text-slate-800">{t('federation.keysLegend')}</legend>
        <Field id={id('jwksUri')} label={t('federation.jwksUri')} name="jwksUri" type="url" maxLength={500} placeholder="https://issuer.example.com/.well-known/jwks.json" hint={t('federation.jwksUriHint')} {...noAutofill} />
        <TextArea id={id('jwks')} label={t('federation.jwks')} name="jwks" rows={4} maxLength={64 * 1024} hint={t('federation.jwksHint')} />
      </fieldset>
      <Field id={id('audience')} label={t('federation.audience')} name="audience" maxLength={500} hint={t('federation.audienceHint', { issuer: props.porticoIssuer })} {...noAutofill} />
    </>
  );
}
