// What the CLI offers, and how a command line is read: every command's one-line summary, usage, options (each with
// a line of help) and an example. Light on purpose — no database, no domain module — so `--help`, a misspelt command
// or an unknown option are answered at once, and the CLI decides before loading anything whether the command goes to
// a running server (lib/cli/control-socket.ts) or opens the database itself.
import { parseArgs } from 'node:util';

export const CLI_PREFIX = 'npm run portico --';

interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** One line for the help: what it takes and means. */
  help: string;
}

export interface CommandSpec {
  summary: string;
  /** The arguments after the noun and verb (positionals and options). */
  usage: string;
  options: Record<string, OptionSpec>;
  example: string;
}

const org = (help = 'the organization’s slug'): OptionSpec => ({ type: 'string', help });
const yes: OptionSpec = { type: 'boolean', help: 'decide without asking (no terminal, or a script)' };

export const CATALOG: Record<string, Record<string, CommandSpec>> = {
  orgs: {
    list: { summary: 'List the organizations (slug and name).', usage: '', options: {}, example: 'orgs list' },
    create: {
      summary: 'Create an organization (nobody is its member until you add one).',
      usage: '--slug <slug> --name <name>',
      options: { slug: { type: 'string', help: 'lowercase letters, digits and dashes; kept for good' }, name: { type: 'string', help: 'the name people see' } },
      example: 'orgs create --slug acme --name "Acme Rockets"',
    },
  },
  users: {
    create: {
      summary: 'Create an account without a password and print its single-use setup link.',
      usage: '--email <email> --name <name>',
      options: { email: { type: 'string', help: 'the person’s email address' }, name: { type: 'string', help: 'their name' } },
      example: 'users create --email ada@example.com --name "Ada Lovelace"',
    },
    'reset-link': {
      summary: 'Print a single-use link with which the person chooses a new password.',
      usage: '--email <email>',
      options: { email: { type: 'string', help: 'the person’s email address' } },
      example: 'users reset-link --email ada@example.com',
    },
    disable: {
      summary: 'Disable an account: no sign-in anywhere; every session and grant ends now, and the apps hear it (logout tokens, RISC account-disabled).',
      usage: '--email <email>',
      options: { email: { type: 'string', help: 'the person’s email address' } },
      example: 'users disable --email ada@example.com',
    },
    enable: {
      summary: 'Enable a disabled account again (its sessions and grants stay ended: the person signs in anew).',
      usage: '--email <email>',
      options: { email: { type: 'string', help: 'the person’s email address' } },
      example: 'users enable --email ada@example.com',
    },
    delete: {
      summary: 'Delete an account for good (asks first): the apps hear it (RISC account-purged, logout tokens), then the person, their memberships, factors and agents go. Refused while they are an organization’s only owner.',
      usage: '--email <email> [--yes]',
      options: { email: { type: 'string', help: 'the person’s email address' }, yes },
      example: 'users delete --email ada@example.com',
    },
  },
  members: {
    invite: {
      summary: 'Invite someone to an organization by mail (the link goes to them only).',
      usage: '--org <slug> --email <email> [--role owner|admin|member]',
      options: { org: org(), email: { type: 'string', help: 'the invitee’s email address' }, role: { type: 'string', help: 'owner, admin or member (default member)' } },
      example: 'members invite --org acme --email grace@example.com --role admin',
    },
    add: {
      summary: 'Add an existing account to an organization, without an invitation.',
      usage: '--org <slug> --email <email> [--role owner|admin|member]',
      options: { org: org(), email: { type: 'string', help: 'the account’s email address' }, role: { type: 'string', help: 'owner, admin or member (default member)' } },
      example: 'members add --org acme --email ada@example.com --role owner',
    },
    remove: {
      summary: 'Remove a person from an organization and revoke their grants there.',
      usage: '--org <slug> --email <email>',
      options: { org: org(), email: { type: 'string', help: 'the member’s email address' } },
      example: 'members remove --org acme --email grace@example.com',
    },
  },
  apps: {
    list: { summary: 'List the apps (org/app, name, publish address, client id).', usage: '[--org <slug>]', options: { org: org('only this organization’s apps') }, example: 'apps list --org acme' },
    create: {
      summary: 'Create an app with its OIDC client and print its credentials (shown only now).',
      usage: '--org <slug> --name <name> --origin <https://app.example> --redirect-uri <uri> [--redirect-uri <uri>…] [--slug <slug>] [--type web|spa|native] [--auth-method client_secret_basic|client_secret_post] [--id-token-alg RS256|ES256]',
      options: {
        org: org(),
        name: { type: 'string', help: 'the name people see when they sign in' },
        origin: { type: 'string', help: 'where the app is published (https, or http on loopback)' },
        'redirect-uri': { type: 'string', multiple: true, help: 'where sign-ins return; repeat for several' },
        slug: { type: 'string', help: 'defaults to one made from the name' },
        'auth-method': { type: 'string', help: 'how the app authenticates at the token endpoint (default client_secret_basic)' },
        'id-token-alg': { type: 'string', help: 'how its ID tokens are signed: RS256 (the default, what relying parties assume) or ES256' },
        type: { type: 'string', help: 'web (a server, with a secret; the default), spa (a single-page app) or native (mobile or desktop): spa and native are public clients with PKCE and no secret' },
      },
      example: 'apps create --org acme --name Notes --origin https://notes.acme.example --redirect-uri https://notes.acme.example/callback',
    },
    permissions: {
      summary: 'List an app’s permission catalog, or add a permission to it.',
      usage: 'add|list --app <org>/<app> [--scope <scope> --description <text>]',
      options: { app: { type: 'string', help: 'the app as <org>/<app>' }, scope: { type: 'string', help: 'the permission’s scope (add)' }, description: { type: 'string', help: 'what it allows, as people read it (add)' } },
      example: 'apps permissions add --app acme/notes --scope notes:write --description "Write your notes"',
    },
    'logout-uris': {
      summary: 'List, add or remove where RP-initiated logout may return for an app (post_logout_redirect_uris, exact match).',
      usage: 'list|add|remove --app <org>/<app> [--uri <uri>]',
      options: { app: { type: 'string', help: 'the app as <org>/<app>' }, uri: { type: 'string', help: 'the return address (add, remove): https, or http on loopback' } },
      example: 'apps logout-uris add --app acme/notes --uri https://notes.acme.example/signed-out',
    },
    'backchannel-logout': {
      summary: 'Show, set or remove where Portico sends an app logout tokens when a person’s session ends (OpenID Connect Back-Channel Logout 1.0).',
      usage: 'show|set|remove --app <org>/<app> [--uri <uri>] [--no-sid]',
      options: {
        app: { type: 'string', help: 'the app as <org>/<app>' },
        uri: { type: 'string', help: 'the back-channel logout URI (set): https, or http on loopback' },
        'no-sid': { type: 'boolean', help: 'the app does not need the session id in every token (set; by default it does)' },
      },
      example: 'apps backchannel-logout set --app acme/notes --uri https://notes.acme.example/backchannel-logout',
    },
    pkce: {
      summary: 'Show whether an app requires PKCE of every sign-in (the default), or let its relying parties that send a nonce but no PKCE sign in (RFC 9700 §2.1.1; public and MCP clients always need PKCE).',
      usage: 'show|require|allow-nonce --app <org>/<app>',
      options: { app: { type: 'string', help: 'the app as <org>/<app>' } },
      example: 'apps pkce allow-nonce --app acme/legacy-portal',
    },
    disable: {
      summary: 'Turn an app off: sign-ins refused with a page that says so, no new tokens; everything is kept.',
      usage: '--app <org>/<app>',
      options: { app: { type: 'string', help: 'the app as <org>/<app>' } },
      example: 'apps disable --app acme/notes',
    },
    enable: { summary: 'Turn an app on again.', usage: '--app <org>/<app>', options: { app: { type: 'string', help: 'the app as <org>/<app>' } }, example: 'apps enable --app acme/notes' },
    delete: {
      summary: 'Delete an app for good, with its clients, grants and tokens (asks first).',
      usage: '--app <org>/<app> [--yes]',
      options: { app: { type: 'string', help: 'the app as <org>/<app>' }, yes },
      example: 'apps delete --app acme/notes',
    },
    env: {
      summary: 'Print the environment an app needs (without its secrets).',
      usage: '<org>/<app> | <app id> | <client id>',
      options: {},
      example: 'apps env acme/notes',
    },
  },
  teams: {
    create: { summary: 'Create a team in an organization.', usage: '--org <org> --name <name>', options: { org: org(), name: { type: 'string', help: 'the team’s name' } }, example: 'teams create --org acme --name Pilots' },
    'add-member': {
      summary: 'Add a member of the organization to a team.',
      usage: '--org <org> --team <name> --email <email>',
      options: { org: org(), team: { type: 'string', help: 'the team’s name' }, email: { type: 'string', help: 'the member’s email address' } },
      example: 'teams add-member --org acme --team Pilots --email ada@example.com',
    },
    grant: {
      summary: 'Give a team a permission of an app.',
      usage: '--org <org> --team <name> --app <app> --scope <scope>',
      options: { org: org(), team: { type: 'string', help: 'the team’s name' }, app: { type: 'string', help: 'the app’s slug' }, scope: { type: 'string', help: 'the permission' } },
      example: 'teams grant --org acme --team Pilots --app notes --scope notes:write',
    },
    revoke: {
      summary: 'Take a permission of an app from a team.',
      usage: '--org <org> --team <name> --app <app> --scope <scope>',
      options: { org: org(), team: { type: 'string', help: 'the team’s name' }, app: { type: 'string', help: 'the app’s slug' }, scope: { type: 'string', help: 'the permission' } },
      example: 'teams revoke --org acme --team Pilots --app notes --scope notes:write',
    },
  },
  people: {
    grant: {
      summary: 'Give one person a permission of an app directly.',
      usage: '--org <org> --email <email> --app <app> --scope <scope>',
      options: { org: org(), email: { type: 'string', help: 'the member’s email address' }, app: { type: 'string', help: 'the app’s slug' }, scope: { type: 'string', help: 'the permission' } },
      example: 'people grant --org acme --email ada@example.com --app notes --scope notes:write',
    },
    revoke: {
      summary: 'Take a directly given permission of an app from a person.',
      usage: '--org <org> --email <email> --app <app> --scope <scope>',
      options: { org: org(), email: { type: 'string', help: 'the member’s email address' }, app: { type: 'string', help: 'the app’s slug' }, scope: { type: 'string', help: 'the permission' } },
      example: 'people revoke --org acme --email ada@example.com --app notes --scope notes:write',
    },
  },
  approvals: {
    list: {
      summary: 'List the pending access requests (all of them with --all).',
      usage: '[--org <slug>] [--all]',
      options: { org: org('only this organization’s requests'), all: { type: 'boolean', help: 'decided and expired ones too' } },
      example: 'approvals list --org acme',
    },
    show: { summary: 'Show one access request: who asks, for what, for how long, where it may be decided.', usage: '<request id>', options: {}, example: 'approvals show apr_…' },
    approve: {
      summary: 'Approve an access request (asks first; the only way for permanent, broad or root requests).',
      usage: '<request id> [--yes]',
      options: { yes },
      example: 'approvals approve apr_…',
    },
    deny: { summary: 'Deny an access request (asks first).', usage: '<request id> [--yes]', options: { yes }, example: 'approvals deny apr_…' },
    revoke: { summary: 'Revoke an access grant before it expires (asks first).', usage: '<grant id (apg_…) | request id> [--yes]', options: { yes }, example: 'approvals revoke apg_…' },
  },
  domains: {
    list: { summary: 'List an organization’s domains: verified (and how) or waiting for their proof.', usage: '--org <slug>', options: { org: org() }, example: 'domains list --org acme' },
    add: {
      summary: 'Add a domain to verify, and print the DNS TXT record (or the file) that proves it.',
      usage: '--org <slug> --domain <domain>',
      options: { org: org(), domain: { type: 'string', help: 'the domain, such as acme.example' } },
      example: 'domains add --org acme --domain acme.example',
    },
    check: {
      summary: 'Look for the domain’s proof now (its TXT record, then its file); verified, the domain is the organization’s alone.',
      usage: '--org <slug> --domain <domain>',
      options: { org: org(), domain: { type: 'string', help: 'the domain' } },
      example: 'domains check --org acme --domain acme.example',
    },
    remove: {
      summary: 'Remove a domain (another organization may then verify it).',
      usage: '--org <slug> --domain <domain>',
      options: { org: org(), domain: { type: 'string', help: 'the domain' } },
      example: 'domains remove --org acme --domain acme.example',
    },
  },
  webhooks: {
    list: { summary: 'List an organization’s webhook endpoints and what happened to their latest delivery.', usage: '--org <slug>', options: { org: org() }, example: 'webhooks list --org acme' },
    add: {
      summary: 'Add a webhook endpoint and print its signing secret (shown only now).',
      usage: '--org <slug> --url <https://…> --event <type> [--event <type>…] [--format standard|slack] [--description <text>]',
      options: {
        org: org(),
        url: { type: 'string', help: 'the endpoint: https, on a public address' },
        event: { type: 'string', multiple: true, help: 'an event type (approval.requested), a family (approval.*) or * ; repeat, or separate with commas' },
        format: { type: 'string', help: 'standard (Standard Webhooks, the default) or slack (one line of text)' },
        description: { type: 'string', help: 'what receives these events' },
      },
      example: 'webhooks add --org acme --url https://hooks.acme.example/portico --event approval.* --event security.*',
    },
    update: {
      summary: 'Change what an endpoint receives, its description, or turn it off and on.',
      usage: '<endpoint id> --org <slug> [--event <type>…] [--description <text>] [--on | --off]',
      options: {
        org: org(),
        event: { type: 'string', multiple: true, help: 'the events it receives from now on (replaces the list)' },
        description: { type: 'string', help: 'what receives these events' },
        on: { type: 'boolean', help: 'turn it on' },
        off: { type: 'boolean', help: 'turn it off (it receives nothing but test events)' },
      },
      example: 'webhooks update 6f1c… --org acme --off',
    },
    rotate: {
      summary: 'Give an endpoint a new signing secret (printed once); the previous one signs beside it for the overlap.',
      usage: '<endpoint id> --org <slug> [--overlap-hours <0–168>]',
      options: { org: org(), 'overlap-hours': { type: 'string', help: 'how long the previous secret keeps signing (default 24)' } },
      example: 'webhooks rotate 6f1c… --org acme --overlap-hours 48',
    },
    test: { summary: 'Send a webhook.test event to an endpoint now.', usage: '<endpoint id> --org <slug>', options: { org: org() }, example: 'webhooks test 6f1c… --org acme' },
    deliveries: { summary: 'Show an endpoint’s latest deliveries: event, webhook-id, state, attempts, answer.', usage: '<endpoint id> --org <slug>', options: { org: org() }, example: 'webhooks deliveries 6f1c… --org acme' },
    redeliver: { summary: 'Send a delivered or given-up event again, with the same webhook-id.', usage: '<delivery id> --org <slug>', options: { org: org() }, example: 'webhooks redeliver 0b7e… --org acme' },
    remove: { summary: 'Remove an endpoint and its delivery log (asks first).', usage: '<endpoint id> --org <slug> [--yes]', options: { org: org(), yes }, example: 'webhooks remove 6f1c… --org acme' },
  },
  servers: {
    list: {
      summary: 'List an organization’s upstream MCP servers (the gateway): address, status, on or off, and their tools by state.',
      usage: '--org <slug>',
      options: { org: org() },
      example: 'servers list --org acme',
    },
    add: {
      summary: 'Put an upstream MCP server behind Portico: reads its tools (each waits for approval) and prints the address agents use.',
      usage: '--org <slug> --name <name> --url <https://…/mcp> [--slug <slug>] [--header <name> (--credential-stdin | --credential-env <VAR>)] [--timeout-ms <n>] [--max-response-bytes <n>] [--max-concurrent <n>]',
      options: {
        org: org(),
        name: { type: 'string', help: 'the name people see' },
        url: { type: 'string', help: 'the upstream’s Streamable HTTP endpoint (https, on a public address or one the installation allows)' },
        slug: { type: 'string', help: 'its short name in <issuer>/mcp/<org>/<slug> (default: made from the name; kept for good)' },
        header: { type: 'string', help: 'the header Portico sends the upstream its credential in (Authorization, X-Api-Key …)' },
        'credential-stdin': { type: 'boolean', help: 'read the credential from standard input (typed unseen, or piped): never on the command line' },
        'credential-env': { type: 'string', help: 'read the credential from this environment variable of the CLI' },
        'timeout-ms': { type: 'string', help: 'how long a call may take, in milliseconds (1000–120000, default 30000)' },
        'max-response-bytes': { type: 'string', help: 'the largest answer read from it (1024–16777216, default 1048576)' },
        'max-concurrent': { type: 'string', help: 'calls to it at once, per Portico process (1–256, default 8)' },
      },
      example: 'servers add --org acme --name "Issue tracker" --url https://mcp.tracker.example/mcp --header Authorization --credential-env TRACKER_TOKEN',
    },
    show: {
      summary: 'Show an upstream MCP server: its resource address, upstream, credential header (never the value), limits, status, and its tools.',
      usage: '<server> --org <slug>',
      options: { org: org() },
      example: 'servers show tracker --org acme',
    },
    tools: {
      summary: 'List a server’s tools with their state, level and permission, and what changed in a changed one; --refresh reads the upstream again first.',
      usage: '<server> --org <slug> [--refresh]',
      options: { org: org(), refresh: { type: 'boolean', help: 'read the upstream’s tools now: new ones wait, changed ones are withheld until approved again, removed ones go' } },
      example: 'servers tools tracker --org acme --refresh',
    },
    approve: {
      summary: 'Approve a tool’s definition as you read it: without --digest it prints the definition and its digest; --all approves every pending tool as offered now.',
      usage: '<server> <tool> --org <slug> [--digest <digest>] [--level safe|caution|review|approval_required] | <server> --all --org <slug>',
      options: {
        org: org(),
        digest: { type: 'string', help: 'the digest the command printed with the definition you read (a definition changed since is refused)' },
        level: { type: 'string', help: 'the level its calls run at: safe, caution, review or approval_required (default: the proposed one, or the one set)' },
        all: { type: 'boolean', help: 'every tool waiting for its first approval, each at its definition now and its level (changed tools: one by one)' },
      },
      example: 'servers approve tracker create_issue --org acme --digest=Vb3…',
    },
    'set-level': {
      summary: 'Set the risk level a tool’s calls run at (approval_required asks a person before each call).',
      usage: '<server> <tool> <safe|caution|review|approval_required> --org <slug>',
      options: { org: org() },
      example: 'servers set-level tracker delete_issue approval_required --org acme',
    },
    'set-permission': {
      summary: 'Set the permission a token needs to see and call a tool (mcp, the default, lets every member).',
      usage: '<server> <tool> <scope> --org <slug>',
      options: { org: org() },
      example: 'servers set-permission tracker delete_issue tracker:admin --org acme',
    },
    disable: {
      summary: 'Turn a server off: no token is issued for it and nobody calls it; its grants and tools wait.',
      usage: '<server> --org <slug>',
      options: { org: org() },
      example: 'servers disable tracker --org acme',
    },
    enable: { summary: 'Turn a server on again.', usage: '<server> --org <slug>', options: { org: org() }, example: 'servers enable tracker --org acme' },
    remove: {
      summary: 'Remove a server for good, with its tools and every grant at it (asks first).',
      usage: '<server> --org <slug> [--yes]',
      options: { org: org(), yes },
      example: 'servers remove tracker --org acme',
    },
    'set-credential': {
      summary: 'Replace the credential Portico sends a server (sealed at once, never shown), or remove it with --none.',
      usage: '<server> --org <slug> (--header <name> (--credential-stdin | --credential-env <VAR>) | --none)',
      options: {
        org: org(),
        header: { type: 'string', help: 'the header the credential goes in' },
        'credential-stdin': { type: 'boolean', help: 'read the credential from standard input: typed unseen, or piped (printf %s "$TOKEN" | …)' },
        'credential-env': { type: 'string', help: 'read the credential from this environment variable of the CLI' },
        none: { type: 'boolean', help: 'send no credential from now on' },
      },
      example: 'servers set-credential tracker --org acme --header Authorization --credential-env TRACKER_TOKEN',
    },
    'set-limits': {
      summary: 'Change how long a server’s calls may take, how large its answers may be, and how many calls run at once.',
      usage: '<server> --org <slug> [--timeout-ms <n>] [--max-response-bytes <n>] [--max-concurrent <n>]',
      options: {
        org: org(),
        'timeout-ms': { type: 'string', help: 'milliseconds, 1000–120000' },
        'max-response-bytes': { type: 'string', help: 'bytes, 1024–16777216' },
        'max-concurrent': { type: 'string', help: 'calls at once per Portico process, 1–256' },
      },
      example: 'servers set-limits tracker --org acme --timeout-ms 60000',
    },
  },
  agents: {
    list: {
      summary: 'List an organization’s agents: id, name, owner, state (enabled, disabled, or suspended when its owner left), sponsor team, last use.',
      usage: '--org <slug>',
      options: { org: org() },
      example: 'agents list --org acme',
    },
    disable: {
      summary: 'Disable an agent, which stops it everywhere: its grants end, its pending confirmations and requests are refused, the apps it reaches are told (RISC account-disabled).',
      usage: '<agent id> --org <slug>',
      options: { org: org() },
      example: 'agents disable agt_… --org acme',
    },
    enable: { summary: 'Enable a disabled or suspended agent again.', usage: '<agent id> --org <slug>', options: { org: org() }, example: 'agents enable agt_… --org acme' },
    keys: {
      summary: 'List, add or remove the public keys of an agent’s own client (private_key_jwt for the client-credentials grant). Public keys only: a private key is refused.',
      usage: 'list|add|remove <agent id> [<key id> | <kid>] --org <slug> [--public-key-file <path> | -] [--alg ES256|RS256|PS256|EdDSA]',
      options: {
        org: org(),
        'public-key-file': { type: 'string', help: 'add: a file with the public key, a JWK (JSON) or a PEM "PUBLIC KEY" block; - reads it from standard input' },
        alg: { type: 'string', help: 'add: the algorithm the agent signs with (default: the key’s own, else ES256, RS256 or EdDSA by its type)' },
      },
      example: 'agents keys add agt_… --org acme --public-key-file ./agent.pub.pem',
    },
    'jwks-uri': {
      summary: 'Set where an agent’s platform publishes its public keys (a JWKS URL, fetched through the outbound guard), or remove it with "".',
      usage: 'set <agent id> <https://…|""> --org <slug>',
      options: { org: org() },
      example: 'agents jwks-uri set agt_… https://keys.acme.example/jwks.json --org acme',
    },
    sponsor: {
      summary: 'Set the team that answers for an agent beside its owner (while it has members, the agent outlives its owner’s leaving), or none.',
      usage: 'set <agent id> <team id | team name | none> --org <slug>',
      options: { org: org() },
      example: 'agents sponsor set agt_… Platform --org acme',
    },
    trust: {
      summary: 'Workload trust rules: list, add or remove which external workload tokens (Kubernetes, SPIFFE, CI, any OIDC issuer) an agent accepts, or test a token against them (exit 0 when a rule takes it).',
      usage:
        'list [--agent <agent id>] --org <slug> | add --org <slug> --agent <agent id> --name <name> --kind kubernetes|spiffe|ci|generic --issuer <issuer> (--jwks-uri <url> | --jwks-file <path>) [--audience <aud>] [--namespace <ns> --service-account <sa>] [--spiffe-id <id>] [--repository <owner/repo> [--ref <ref>]] [--subject <sub>] [--claim <path=value>…] | remove <rule id> --org <slug> | test --org <slug> [--token-file <path> | -]',
      options: {
        org: org(),
        agent: { type: 'string', help: 'the agent the rule is for (add), or whose rules to list (list)' },
        name: { type: 'string', help: 'add: the rule’s name, as people read it' },
        kind: { type: 'string', help: 'add: kubernetes, spiffe, ci or generic' },
        issuer: { type: 'string', help: 'add: the tokens’ issuer (iss), an https URL; for SPIFFE also spiffe://<trust-domain>' },
        'jwks-uri': { type: 'string', help: 'add: where the issuer publishes its public keys (https)' },
        'jwks-file': { type: 'string', help: 'add: a file with the issuer’s public keys as a JWKS ({"keys": [...]}), instead of --jwks-uri' },
        audience: { type: 'string', help: 'add: the audience the tokens carry (default: this Portico’s issuer or its token endpoint)' },
        namespace: { type: 'string', help: 'add, kubernetes: the service account’s namespace' },
        'service-account': { type: 'string', help: 'add, kubernetes: the service account’s name' },
        'spiffe-id': { type: 'string', help: 'add, spiffe: the workload’s SPIFFE ID (spiffe://<trust-domain>/<path>)' },
        repository: { type: 'string', help: 'add, ci: the repository (owner/repository; GitLab: the project path)' },
        ref: { type: 'string', help: 'add, ci: only tokens of this ref (refs/heads/main)' },
        subject: { help: 'add: the token’s exact subject (sub)', type: 'string' },
        claim: { type: 'string', multiple: true, help: 'add: a claim the token must carry, path=value (exact; a dotted path reaches inside); repeat for several' },
        'token-file': { type: 'string', help: 'test: a file with the token; - (or nothing) reads it from standard input — never from the command line' },
      },
      example: 'agents trust add --org acme --agent agt_… --name "Deployer in prod" --kind kubernetes --issuer https://k8s.acme.example --jwks-file ./cluster-jwks.json --namespace prod --service-account deployer',
    },
  },
  audit: {
    verify: {
      summary: 'Check every audit chain, archived events included, and name the first broken link of each.',
      usage: '[--org <slug>] [--archive <folder>]',
      options: { org: org('only this organization’s chain'), archive: { type: 'string', help: 'the archive folder (default: PORTICO_AUDIT_ARCHIVE_DIR)' } },
      example: 'audit verify',
    },
    retention: {
      summary: 'Set how many days an organization’s audit events stay in the database before they move to the archive.',
      usage: '--org <slug> --days <30…36500 | forever>',
      options: { org: org(), days: { type: 'string', help: 'days (30 to 36500), or forever to keep every event in the database' } },
      example: 'audit retention --org acme --days 365',
    },
    archive: {
      summary: 'Move audit events past their organization’s retention into the archive now (the server does it hourly).',
      usage: '[--org <slug>] [--to <folder>]',
      options: { org: org('only this organization’s events'), to: { type: 'string', help: 'the archive folder (default: PORTICO_AUDIT_ARCHIVE_DIR)' } },
      example: 'audit archive --org acme',
    },
  },
};

function usageLine(noun: string, verb: string, spec: CommandSpec): string {
  return `${CLI_PREFIX} ${noun} ${verb}${spec.usage ? ` ${spec.usage}` : ''}`;
}

/** The whole list: each command with its summary, then how to get a command's own help. */
export function overviewHelp(): string {
  const lines = [`Usage: ${CLI_PREFIX} <command> [options]`, '', 'Commands:'];
  const width = Math.max(...Object.entries(CATALOG).flatMap(([noun, verbs]) => Object.keys(verbs).map((verb) => `${noun} ${verb}`.length)));
  for (const [noun, verbs] of Object.entries(CATALOG)) {
    for (const [verb, spec] of Object.entries(verbs)) lines.push(`  ${`${noun} ${verb}`.padEnd(width)}  ${spec.summary}`);
  }
  lines.push('', `A command's options and an example: ${CLI_PREFIX} <command> --help`);
  lines.push('While Portico runs on this machine, commands go to it (its control socket); otherwise they open the database.');
  return lines.join('\n');
}

/** One command's help: summary, usage, every option with its line, an example. */
export function commandHelp(noun: string, verb: string): string {
  const spec = CATALOG[noun]![verb]!;
  const lines = [spec.summary, '', `Usage: ${usageLine(noun, verb, spec)}`];
  const options = Object.entries(spec.options);
  if (options.length > 0) {
    lines.push('', 'Options:');
    const width = Math.max(...options.map(([name]) => name.length + 2));
    for (const [name, option] of options) lines.push(`  ${`--${name}`.padEnd(width)}  ${option.help}`);
  }
  lines.push('', `Example: ${CLI_PREFIX} ${spec.example}`);
  return lines.join('\n');
}

export type CommandLine =
  | { kind: 'help'; text: string }
  /** A misuse: the message and the usage that helps; exit code 2. */
  | { kind: 'misuse'; text: string }
  | { kind: 'run'; noun: string; verb: string; values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };

const isHelp = (word: string | undefined) => word === '--help' || word === '-h' || word === 'help';

/** Reads a command line: help, a misuse (said in plain words), or a command with its parsed options. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [noun, verb, ...rest] = argv;
  if (noun === undefined || isHelp(noun)) return { kind: 'help', text: overviewHelp() };
  // Own keys only: "constructor" or "__proto__" are no commands.
  const verbs = Object.hasOwn(CATALOG, noun) ? CATALOG[noun] : undefined;
  if (!verbs) return { kind: 'misuse', text: `Unknown command "${noun}".\n\n${overviewHelp()}` };
  if (verb === undefined || isHelp(verb) || !Object.hasOwn(verbs, verb)) {
    const list = Object.keys(verbs)
      .map((name) => `  ${CLI_PREFIX} ${noun} ${name}  — ${verbs[name]!.summary}`)
      .join('\n');
    const known = verb === undefined || isHelp(verb);
    return { kind: known ? 'help' : 'misuse', text: `${known ? '' : `"${noun}" has no command "${verb}". `}The ${noun} commands:\n${list}` };
  }
  const spec = verbs[verb]!;
  // --help (or -h) as an option asks for help; the same word as an option's value (--name help) or after `--` does not.
  const optionsEnd = rest.indexOf('--');
  const asked = (optionsEnd === -1 ? rest : rest.slice(0, optionsEnd)).some((word, index, words) => (word === '--help' || word === '-h') && !takesValue(spec, words[index - 1]));
  if (asked) return { kind: 'help', text: commandHelp(noun, verb) };
  const options = Object.fromEntries(Object.entries(spec.options).map(([name, option]) => [name, { type: option.type, ...(option.multiple ? { multiple: true } : {}) }]));
  try {
    const { values, positionals } = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    return { kind: 'run', noun, verb, values, positionals };
  } catch (error) {
    return { kind: 'misuse', text: `${plainParseError(error, spec)}\n\n${commandHelp(noun, verb)}` };
  }
}

/** Whether the word before names a string option (so the word after it is that option's value). */
function takesValue(spec: CommandSpec, previous: string | undefined): boolean {
  return previous !== undefined && previous.startsWith('--') && !previous.includes('=') && spec.options[previous.slice(2)]?.type === 'string';
}

/** node:util's parse errors in the CLI's words (the option named as typed, and what this command takes). */
function plainParseError(error: unknown, spec: CommandSpec): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const named = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? 'an option';
  const known = Object.keys(spec.options).map((name) => `--${name}`);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `Unknown option ${named}.${known.length > 0 ? ` This command takes ${known.join(', ')}.` : ' This command takes no options.'}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return message.includes('argument missing') ? `${named} needs a value: ${named} <value>.` : `${named} takes no value: write it alone.`;
  return message;
}
