// The central's addresses, built in one place, and the shape of a request id.
import { describe, expect, it } from 'vitest';
import { centralRequestUrl, embeddedCentralRequestUrl, isApprovalRequestId } from '../../lib/approvals/central-urls';

describe('central URLs', () => {
  it('name a request’s page in the central and in the embedded central, as a path or under an origin', () => {
    const id = `apr_${'a'.repeat(24)}`;
    expect(isApprovalRequestId(id)).toBe(true);
    for (const bad of ['apr_short', `apr_${'a'.repeat(25)}`, `apr_${'a'.repeat(23)}/`, '../central', 42, undefined]) expect(isApprovalRequestId(bad)).toBe(false);
    expect(centralRequestUrl(id)).toBe(`/central/requests/${id}`);
    expect(centralRequestUrl(id, 'https://id.example')).toBe(`https://id.example/central/requests/${id}`);
    expect(embeddedCentralRequestUrl(id, 'https://id.example')).toBe(`https://id.example/embedded-central/requests/${id}`);
  });
});
