'use server';
// Settings → Approvals: set or remove an approval policy (lib/approvals/policies.ts), owners only; a refusal about
// one field stands next to it, and the form keeps what was typed.
import { z } from 'zod';
import { POLICY_DECIDERS, removeApprovalPolicy, setApprovalPolicy, APPROVAL_POLICY_KINDS } from '@/lib/approvals/policies';
import { getT } from '@/app/_lib/i18n/server';
import { orgAction } from '../../../_lib/action';

/** An optional whole number typed in a field: empty is none. */
const optionalNumber = z
  .string()
  .trim()
  .default('')
  .transform((value) => (value === '' ? null : Number(value)));
const many = z.union([z.string(), z.array(z.string())]).optional().transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));

export const setPolicyAction = orgAction(
  {
    permission: 'approvals.policy',
    input: z.object({
      appId: z.string().max(64).default(''),
      kind: z.enum(APPROVAL_POLICY_KINDS),
      deciders: z.enum(POLICY_DECIDERS),
      teamId: z.string().max(64).default(''),
      userIds: many,
      quorum: z.string().trim().default('1').transform(Number),
      anyDenyEnds: z.enum(['on']).optional(),
      escalateAfterMinutes: optionalNumber,
      escalateTo: z.enum(['owners', 'team']).default('owners'),
      escalateTeamId: z.string().max(64).default(''),
      maxGrantMinutes: optionalNumber,
    }),
    // A policy's refusal names its field in the policy's terms; the form asks for minutes.
    refused: (refusal) => (refusal.code === 'invalid_policy' && refusal.field ? { field: refusal.field === 'maxGrantSeconds' ? 'maxGrantMinutes' : refusal.field } : undefined),
  },
  async ({ tx, input, access, audit }) => {
    await setApprovalPolicy(
      { tx, audit, orgId: access.org.id },
      {
        appId: input.appId || null,
        kind: input.kind,
        deciders: input.deciders,
        teamId: input.teamId || null,
        userIds: input.userIds,
        quorum: input.quorum,
        anyDenyEnds: input.anyDenyEnds === 'on',
        escalateAfterMinutes: input.escalateAfterMinutes,
        escalateTo: input.escalateTo,
        escalateTeamId: input.escalateTeamId || null,
        maxGrantSeconds: input.maxGrantMinutes === null ? null : Math.round(input.maxGrantMinutes * 60),
      },
    );
    return { status: 'ok', message: (await getT('console.policies'))('saved') };
  },
);

export const removePolicyAction = orgAction(
  { permission: 'approvals.policy', input: (t) => z.object({ policyId: z.string().max(64), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    await removeApprovalPolicy({ tx, audit, orgId: access.org.id }, input.policyId);
    return { status: 'ok', message: (await getT('console.policies'))('removed') };
  },
);
