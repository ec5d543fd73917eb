// GET /account/sessions – the address apps and older mails link to for "your sessions": the one account area is
// /console/account (sessions of the console, the central and apps, each with its own sign-out). Signed out, the
// console's sign-in brings the person back there.
export const dynamic = 'force-dynamic';

export function GET() {
  return new Response(null, { status: 308, headers: { Location: '/console/account#sessions', 'Cache-Control': 'no-store' } });
}
