'use server';
import { z } from 'zod';
import { deleteOrganization, renameOrganization, setBranding, setDefaultLocale } from '@/lib/accounts/organizations';
import { supportedLocale } from '@/lib/i18n/catalogs';
import { getT } from '@/lib/i18n/server';
import { SECOND_FACTOR_POLICIES, SECOND_FACTOR_POLICY_LABELS, setSecondFactorPolicy } from '@/lib/accounts/second-factor-policy';
import { ActionRefusal, orgAction } from '../../_lib/action';

const optional = (schema: z.ZodString) =>
  z.string().trim().transform((value) => (value === '' ? null : value)).pipe(schema.nullable());

export const saveBrandingAction = orgAction(
  {
    permission: 'branding.manage',
    input: z.object({
      displayName: optional(z.string().max(60, 'must be at most 60 characters')),
      logoUrl: optional(z.string().max(2048).regex(/^https:\/\/\S+$/, 'must be an https URL')),
      primaryColor: optional(z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #3346d3')),
      backgroundColor: optional(z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #f4f5f7')),
    }),
  },
  async ({ tx, input, access, audit }) => {
    await setBranding(tx, access.org.id, input);
    await audit({ action: 'org.branding_updated', subject: { type: 'organization', id: access.org.id, label: access.org.name }, details: input });
    return { status: 'ok', message: 'Branding saved. The sign-in card of every app of this organization shows it now.' };
  },
);

export const saveSecondFactorPolicyAction = orgAction(
  { permission: 'security.manage', input: z.object({ policy: z.enum(SECOND_FACTOR_POLICIES, { error: 'choose who must have a second factor' }) }) },
  async ({ tx, input, access, audit }) => {
    await setSecondFactorPolicy(tx, access.org.id, input.policy);
    await audit({ action: 'org.second_factor_policy_updated', subject: { type: 'organization', id: access.org.id, label: access.org.name }, details: { policy: input.policy } });
    return {
      status: 'ok',
      message:
        input.policy === 'none'
          ? 'Saved: nobody is required to have a second factor.'
          : `Saved: ${SECOND_FACTOR_POLICY_LABELS[input.policy].toLowerCase()} must have a second factor. Whoever has none sets one up at their next sign-in; sessions already open go on until they end.`,
    };
  },
);

/** The organization's default language: '' for the browser's, otherwise one of the catalogs. */
export const saveDefaultLocaleAction = orgAction(
  { permission: 'branding.manage', input: z.object({ locale: z.string().trim().max(35) }) },
  async ({ tx, input, access, audit }) => {
    const t = await getT('console.settings.language');
    const locale = input.locale === '' ? null : supportedLocale(input.locale);
    if (locale === undefined) throw new ActionRefusal(t('unknown'), 'locale');
    await setDefaultLocale(tx, access.org.id, locale);
    await audit({ action: 'org.default_locale_updated', subject: { type: 'organization', id: access.org.id, label: access.org.name }, details: { locale } });
    return { status: 'ok', message: locale ? t('saved') : t('savedBrowser') };
  },
);

export const deleteOrganizationAction = orgAction(
  { permission: 'org.delete', input: z.object({ confirmSlug: z.string().trim(), confirmed: z.literal('yes', { error: 'confirm the deletion' }) }) },
  async ({ tx, input, access, audit }) => {
    if (input.confirmSlug !== access.org.slug) throw new ActionRefusal(`Type the organization's slug, ${access.org.slug}, to confirm.`);
    await audit({ action: 'org.deleted', subject: { type: 'organization', id: access.org.id, label: access.org.name } });
    await deleteOrganization(tx, access.org.id);
    return { status: 'ok', message: `${access.org.name} was deleted.`, redirect: '/console' };
  },
);

export const renameOrganizationAction = orgAction(
  { permission: 'org.rename', input: z.object({ name: z.string().trim().min(1, 'Give the organization a name.').max(80, 'A name has at most 80 characters.') }) },
  async ({ tx, input, access, audit }) => {
    if (input.name === access.org.name) throw new ActionRefusal('That is its name already.');
    await renameOrganization(tx, access.org.id, input.name);
    await audit({ action: 'org.renamed', subject: { type: 'organization', id: access.org.id, label: input.name }, details: { from: access.org.name, to: input.name } });
    return { status: 'ok', message: `Renamed to ${input.name}. The address stays /console/${access.org.slug}.` };
  },
);
