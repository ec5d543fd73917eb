import type { Metadata } from 'next';
import Link from 'next/link';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { Field, Select } from '../../../_components/fields';
import { NameAndSlugFields } from '../../../_components/name-and-slug';
import { PageHeader } from '../../../_components/page-header';
import { createAppAction } from '../actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'New app' };

export default async function NewAppPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('apps.manage')) {
    return <PageHeader title="New app" description="Only the organization’s owners and admins can create apps." />;
  }
  return (
    <>
      <PageHeader title="New app" description="Portico creates the app's own OIDC client and shows its credentials once." />
      <div className="panel max-w-xl">
        <ActionForm action={createAppAction} org={access.org.slug} submitLabel="Create app" testId="create-app">
          <NameAndSlugFields
            idPrefix="app"
            nameHint="What people see on the sign-in card and the consent screen."
            preview={`Used in commands: npm run portico -- apps … --app ${access.org.slug}/{slug}.`}
            fallback="app"
            placeholder="Billing"
          />
          <Field label="Publish address" name="origin" required placeholder="https://billing.example.com" hint="The app's origin. Its MCP resource is <origin>/api/mcp." />
          <Field label="Redirect URI" name="redirectUri" required placeholder="https://billing.example.com/auth/callback" hint="Matched exactly. Add more on the app's page." />
          <Select
            label="Client authentication"
            name="authMethod"
            defaultValue="client_secret_basic"
            options={[
              { value: 'client_secret_basic', label: 'client_secret_basic (HTTP Basic header)' },
              { value: 'client_secret_post', label: 'client_secret_post (in the form body)' },
            ]}
          />
        </ActionForm>
      </div>
      <p className="mt-4 text-sm">
        <Link href={`/console/${access.org.slug}/apps`}>Back to apps</Link>
      </p>
    </>
  );
}
