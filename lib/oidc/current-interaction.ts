// The interaction a page request is about, looked up once per render: the sign-in card, its language
// (ui_locales and the organization's default) and the layout around it all ask for the same one.
import 'server-only';
import { cache } from 'react';
import { headers } from 'next/headers';
import { db, runtime } from '../runtime';
import { findInteraction, type InteractionLookup } from './interactions';
import { findSignInTarget, type SignInTarget } from './sign-in-target';

export const currentInteraction = cache(async (uid: string): Promise<InteractionLookup> => {
  return findInteraction(runtime().provider, (await headers()).get('cookie'), uid);
});

export const currentSignInTarget = cache(async (uid: string): Promise<SignInTarget | undefined> => {
  const lookup = await currentInteraction(uid);
  if (!lookup.ok) return undefined;
  return findSignInTarget(db(), runtime().provider, runtime().env.PORTICO_ISSUER, lookup.interaction.params);
});
