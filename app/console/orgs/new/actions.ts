'use server';
// Creating an organization from the console: any signed-in person (unless PORTICO_ORG_CREATION=cli), who becomes
// its owner. A refusal keeps what was typed and says what is wrong next to its field.
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { createOwnedOrganization } from '@/lib/organizations/organizations';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import { refusalAnswer } from '../../../account/_lib/refusal-words';
import { currentConsoleSession } from '../../_lib/session';

export type NewOrgState = { status: 'idle' } | { status: 'error'; values: { name: string; slug: string }; fieldErrors: Partial<Record<'name' | 'slug' | 'form', string>> };

export async function createOrganizationAction(_previous: NewOrgState, data: FormData): Promise<NewOrgState> {
  const text = (key: string) => {
    const value = data.get(key);
    return typeof value === 'string' ? value.slice(0, 200) : '';
  };
  const values = { name: text('name'), slug: text('slug').trim().toLowerCase() };
  const t = await getT('orgs.actions');
  const session = await currentConsoleSession();
  if (!session) return { status: 'error', values, fieldErrors: { form: t('sessionEnded') } };
  if (runtime().env.PORTICO_ORG_CREATION !== 'anyone') return { status: 'error', values, fieldErrors: { form: t('closed') } };
  const ip = clientIpFromHeaders(await headers());
  let slug: string;
  try {
    const org = await db().transaction((tx) => createOwnedOrganization(tx, { name: values.name, slug: values.slug, owner: session.user, ip }));
    slug = org.slug;
  } catch (error) {
    const refused = await refusalAnswer(error);
    return { status: 'error', values, fieldErrors: { [refused.field]: refused.message } };
  }
  redirect(`/console/${slug}/apps?created=org`);
}
