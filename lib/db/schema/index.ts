export * from './accounts';
export * from './agents';
export * from './apps';
export * from './oidc';
export * from './system';
export * from './audit';
export * from './mcp';
export * from './approvals';
