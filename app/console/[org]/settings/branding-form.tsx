'use client';
// Branding fields with a live preview of the /auth/app sign-in card as it will look.
import { readableTextOn } from '@/lib/util/contrast';
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { ActionForm } from '../../_components/action-form';
import { Field } from '../../_components/fields';
import { saveBrandingAction } from './actions';

interface Branding {
  displayName: string;
  logoUrl: string;
  primaryColor: string;
  backgroundColor: string;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

export function BrandingForm({ org, orgName, initial }: { org: string; orgName: string; initial: Branding }) {
  const t = useTranslations('console.settings.branding');
  const [brand, setBrand] = useState(initial);
  const set = (key: keyof Branding) => (event: React.ChangeEvent<HTMLInputElement>) => setBrand({ ...brand, [key]: event.target.value });
  const branded = Object.values(brand).some((value) => value.trim() !== '');
  const primary = HEX.test(brand.primaryColor) ? brand.primaryColor : '#3346d3';
  const background = HEX.test(brand.backgroundColor) ? brand.backgroundColor : '#f4f5f7';
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <div className="panel">
        <ActionForm action={saveBrandingAction} org={org} submitLabel={t('save')} testId="branding">
          <Field label={t('displayName')} name="displayName" value={brand.displayName} onChange={set('displayName')} placeholder={orgName} />
          <Field label={t('logoUrl')} name="logoUrl" value={brand.logoUrl} onChange={set('logoUrl')} placeholder="https://…/logo.svg" />
          <Field label={t('primaryColor')} name="primaryColor" value={brand.primaryColor} onChange={set('primaryColor')} placeholder="#3346d3" />
          <Field label={t('backgroundColor')} name="backgroundColor" value={brand.backgroundColor} onChange={set('backgroundColor')} placeholder="#f4f5f7" />
          <p className="text-xs text-slate-500">{t('emptyHint')}</p>
        </ActionForm>
      </div>
      <div aria-label={t('preview.label')} data-testid="brand-preview" className="rounded-xl p-6" style={{ background }}>
        <div className="mx-auto max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
          <div className="mb-5 flex items-center gap-2 font-semibold">
            {branded && HEX.test(brand.primaryColor) ? <span className="inline-block h-6 w-6 rounded" style={{ background: primary }} aria-hidden="true" /> : null}
            <span data-testid="preview-name">{branded ? brand.displayName || orgName : 'Portico'}</span>
          </div>
          <p className="mb-1 text-lg font-semibold">{t('preview.title')}</p>
          <p className="mb-4 text-sm text-slate-600">{t('preview.intro', { account: brand.displayName || orgName })}</p>
          <div className="mb-3 h-9 rounded-md border border-slate-300" />
          <div className="mb-4 h-9 rounded-md border border-slate-300" />
          <div className="rounded-md py-2 text-center text-sm font-semibold" style={{ background: primary, color: readableTextOn(primary) }} data-testid="preview-button">
            {t('preview.signIn')}
          </div>
          {branded ? <p className="mt-3 text-center text-xs text-slate-500">{t('preview.securedBy')}</p> : null}
        </div>
      </div>
    </div>
  );
}
