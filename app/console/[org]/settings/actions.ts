'use server';
import { z } from 'zod';
import { deleteOrganization, renameOrganization, setBranding, setDefaultLocale, setDefaultTimeZone } from '@/lib/organizations/organizations';
import { supportedTimeZone } from '@/lib/i18n/time-zone';
import { localized, supportedLocale } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { SECOND_FACTOR_POLICIES, setSecondFactorPolicy } from '@/lib/accounts/factors/second-factor-policy';
import { actionRefusal, orgAction } from '../../_lib/action';

const optional = (schema: z.ZodString) =>
  z.string().trim().transform((value) => (value === '' ? null : value)).pipe(schema.nullable());

export const saveBrandingAction = orgAction(
  {
    permission: 'branding.manage',
    input: (t) =>
      z.object({
        displayName: optional(z.string().max(60, t('console.settings.branding.errors.displayName'))),
        logoUrl: optional(z.string().max(2048, t('console.settings.branding.errors.logoUrlLength')).regex(/^https:\/\/\S+$/, t('console.settings.branding.errors.logoUrl'))),
        primaryColor: optional(z.string().regex(/^#[0-9a-fA-F]{6}$/, t('console.settings.branding.errors.primaryColor'))),
        backgroundColor: optional(z.string().regex(/^#[0-9a-fA-F]{6}$/, t('console.settings.branding.errors.backgroundColor'))),
      }),
  },
  async ({ tx, input, access, audit }) => {
    await setBranding(tx, access.org.id, input);
    await audit({ action: 'org.branding_updated', subject: { type: 'organization', id: access.org.id, label: access.org.name }, details: input });
    return { status: 'ok', message: (await getT('console.settings.branding'))('saved') };
  },
);

export const saveSecondFactorPolicyAction = orgAction(
  { permission: 'security.manage', input: (t) => z.object({ policy: z.enum(SECOND_FACTOR_POLICIES, { error: t('console.settings.twoStep.errors.policy') }) }) },
  async ({ tx, input, access, audit }) => {
    await setSecondFactorPolicy(tx, access.org.id, input.policy);
    await audit({ action: 'org.second_factor_policy_updated', subject: { type: 'organization', id: access.org.id, label: access.org.name }, details: { policy: input.policy } });
    const t = await getT('console.settings.twoStep');
    return { status: 'ok', message: input.policy === 'none' ? t('savedNone') : t('saved', { policy: input.policy }) };
  },
);

/** The organization's default language: '' for the browser's, otherwise one of the catalogs. */
export const saveDefaultLocaleAction = orgAction(
  { permission: 'branding.manage', input: z.object({ locale: z.string().trim().max(35) }) },
  async ({ tx, input, access, audit }) => {
    const t = await getT('console.settings.language');
    const locale = input.locale === '' ? null : supportedLocale(input.locale);
    if (locale === undefined) throw actionRefusal(t('unknown'), 'locale');
    await setDefaultLocale(tx, access.org.id, locale);
    await audit({ action: 'org.default_locale_updated', subject: { type: 'organization', id: access.org.id, label: access.org.name }, details: { locale } });
    return { status: 'ok', message: locale ? t('saved') : t('savedBrowser') };
  },
);

/** The time zone of the mail of its people who chose none: '' for UTC, otherwise a zone the runtime knows. */
export const saveDefaultTimeZoneAction = orgAction(
  { permission: 'branding.manage', input: z.object({ timeZone: z.string().trim().max(100) }) },
  async ({ tx, input, access, audit }) => {
    const t = await getT('console.settings.timeZone');
    const zone = input.timeZone === '' ? null : supportedTimeZone(input.timeZone);
    if (zone === undefined) throw actionRefusal(t('unknown'), 'timeZone');
    await setDefaultTimeZone(tx, access.org.id, zone);
    await audit({ action: 'org.default_time_zone_updated', subject: { type: 'organization', id: access.org.id, label: access.org.name }, details: { timeZone: zone } });
    return { status: 'ok', message: zone ? t('saved', { zone: zone.replaceAll('_', ' ') }) : t('savedNone') };
  },
);

export const deleteOrganizationAction = orgAction(
  { permission: 'org.delete', input: (t) => z.object({ confirmSlug: z.string().trim(), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    if (input.confirmSlug !== access.org.slug) throw actionRefusal(localized('console.settings.delete.wrongSlug', { slug: access.org.slug }));
    await audit({ action: 'org.deleted', subject: { type: 'organization', id: access.org.id, label: access.org.name } });
    await deleteOrganization(tx, access.org.id);
    return { status: 'ok', message: (await getT('console.settings.delete'))('deleted', { name: access.org.name }), redirect: '/console' };
  },
);

export const renameOrganizationAction = orgAction(
  {
    permission: 'org.rename',
    input: (t) => z.object({ name: z.string().trim().min(1, t('refusals.organization.nameMissing')).max(80, t('refusals.organization.nameTooLong')) }),
  },
  async ({ tx, input, access, audit }) => {
    if (input.name === access.org.name) throw actionRefusal(localized('console.settings.identity.sameName'));
    await renameOrganization(tx, access.org.id, input.name);
    await audit({ action: 'org.renamed', subject: { type: 'organization', id: access.org.id, label: input.name }, details: { from: access.org.name, to: input.name } });
    return { status: 'ok', message: (await getT('console.settings.identity'))('renamed', { name: input.name, slug: access.org.slug }) };
  },
);
