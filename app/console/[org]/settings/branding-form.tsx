'use client';
// Branding fields with a live preview of the /auth/app sign-in card as it will look.
import { readableTextOn } from '@/lib/util/contrast';
import { useState } from 'react';
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
  const [brand, setBrand] = useState(initial);
  const set = (key: keyof Branding) => (event: React.ChangeEvent<HTMLInputElement>) => setBrand({ ...brand, [key]: event.target.value });
  const branded = Object.values(brand).some((value) => value.trim() !== '');
  const primary = HEX.test(brand.primaryColor) ? brand.primaryColor : '#3346d3';
  const background = HEX.test(brand.backgroundColor) ? brand.backgroundColor : '#f4f5f7';
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <div className="panel">
        <ActionForm action={saveBrandingAction} org={org} submitLabel="Save branding" testId="branding">
          <Field label="Display name" name="displayName" value={brand.displayName} onChange={set('displayName')} placeholder={orgName} />
          <Field label="Logo URL" name="logoUrl" value={brand.logoUrl} onChange={set('logoUrl')} placeholder="https://…/logo.svg" />
          <Field label="Primary colour" name="primaryColor" value={brand.primaryColor} onChange={set('primaryColor')} placeholder="#3346d3" />
          <Field label="Background colour" name="backgroundColor" value={brand.backgroundColor} onChange={set('backgroundColor')} placeholder="#f4f5f7" />
          <p className="text-xs text-slate-500">Leave every field empty to use Portico’s own brand.</p>
        </ActionForm>
      </div>
      <div aria-label="Sign-in card preview" data-testid="brand-preview" className="rounded-xl p-6" style={{ background }}>
        <div className="mx-auto max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
          <div className="mb-5 flex items-center gap-2 font-semibold">
            {branded && HEX.test(brand.primaryColor) ? <span className="inline-block h-6 w-6 rounded" style={{ background: primary }} aria-hidden="true" /> : null}
            <span data-testid="preview-name">{branded ? brand.displayName || orgName : 'Portico'}</span>
          </div>
          <p className="mb-1 text-lg font-semibold">Sign in to Example App</p>
          <p className="mb-4 text-sm text-slate-600">Use your {brand.displayName || orgName} account.</p>
          <div className="mb-3 h-9 rounded-md border border-slate-300" />
          <div className="mb-4 h-9 rounded-md border border-slate-300" />
          <div className="rounded-md py-2 text-center text-sm font-semibold" style={{ background: primary, color: readableTextOn(primary) }} data-testid="preview-button">
            Sign in
          </div>
          {branded ? <p className="mt-3 text-center text-xs text-slate-500">Secured by Portico</p> : null}
        </div>
      </div>
    </div>
  );
}
