/** Every operation's id, by method and OpenAPI path (change one only as a breaking change of the API), and how to read them off a document. */

/** The route table's (worker/api/routes/). */
export const ROUTE_OPERATION_IDS = {
  "POST /api/v1/keys": "createKey",
  "GET /api/v1/keys": "listKeys",
  "GET /api/v1/keys/current": "getCurrentKey",
  "DELETE /api/v1/keys/{id}": "revokeKey",
  "GET /api/v1/keys/{id}/usage": "getKeyUsage",
  "POST /api/v1/sites": "createSite",
  "GET /api/v1/sites": "listSites",
  "GET /api/v1/sites/{id}": "getSite",
  "PATCH /api/v1/sites/{id}": "updateSite",
  "DELETE /api/v1/sites/{id}": "deleteSite",
  "POST /api/v1/sites/{id}/token": "rotateSiteToken",
  "GET /api/v1/sites/{id}/verification": "getSiteVerification",
  "GET /api/v1/sites/{id}/arrivals": "getSiteArrivals",
  "POST /api/v1/sites/{id}/goals": "createGoal",
  "GET /api/v1/sites/{id}/goals": "listGoals",
  "PATCH /api/v1/sites/{id}/goals/{goal}": "updateGoal",
  "DELETE /api/v1/sites/{id}/goals/{goal}": "deleteGoal",
  "GET /api/v1/sites/{id}/props": "listSiteProps",
  "PUT /api/v1/sites/{id}/props/{name}": "createSiteProp",
  "DELETE /api/v1/sites/{id}/props/{name}": "deleteSiteProp",
  "POST /api/v1/sites/{id}/shares": "createShareLink",
  "GET /api/v1/sites/{id}/shares": "listShareLinks",
  "DELETE /api/v1/sites/{id}/shares/{share}": "revokeShareLink",
  "GET /api/v1/share": "getShare",
  "POST /share/{token}/unlock": "createShareUnlock",
  "POST /api/v1/sites/{id}/imports": "createImport",
  "GET /api/v1/sites/{id}/imports": "listImports",
  "DELETE /api/v1/sites/{id}/imports/{import_id}": "deleteImport",
  "GET /api/v1/sessions": "listSessions",
  "POST /api/v1/events": "recordEvents",
  "GET /api/v1/pages": "getPagesReport",
  "GET /api/v1/vitals": "getVitalsReport",
  "GET /api/v1/conversions": "getConversionsReport",
  "GET /api/v1/funnels": "getFunnelReport",
  "GET /api/v1/timeseries": "getTimeseries",
  "GET /api/v1/breakdown": "getBreakdownReport",
  "POST /api/v1/query": "getQueryResults",
  "GET /api/v1/aggregate": "getAggregateReport",
  "GET /api/v1/overview": "getOverview",
  "GET /api/v1/live": "getLive",
  "POST /api/v1/deployments": "createDeployment",
  "GET /api/v1/deployments": "listDeployments",
  "GET /api/v1/deployments/{id}": "getDeployment",
  "DELETE /api/v1/deployments/{id}": "deleteDeployment",
  "POST /api/v1/sites/{id}/deployment-hook": "createDeploymentHook",
  "POST /hooks/deployments/{site}": "recordDeploymentWebhook",
  "POST /api/v1/alerts": "createAlertRule",
  "GET /api/v1/alerts": "listAlertRules",
  "GET /api/v1/alerts/{id}": "getAlertRule",
  "PATCH /api/v1/alerts/{id}": "updateAlertRule",
  "DELETE /api/v1/alerts/{id}": "deleteAlertRule",
  "GET /api/v1/alerts/{id}/history": "getAlertHistory",
  "POST /api/v1/alerts/{id}/test": "testAlertRule",
  "GET /api/v1/sites/{id}/digests": "listDigests",
  "POST /api/v1/sites/{id}/digests": "createDigest",
  "DELETE /api/v1/sites/{id}/digests/{digestId}": "deleteDigest",
  "POST /api/v1/sites/{id}/digests/{digestId}/preview": "getDigestPreview",
  "GET /api/v1/auth/methods": "getAuthMethods",
  "POST /api/v1/auth/passkey/register/options": "createPasskeyRegistrationOptions",
  "POST /api/v1/auth/passkey/register": "createPasskey",
  "POST /api/v1/auth/passkey/sign-in/options": "createPasskeySignInOptions",
  "POST /api/v1/auth/passkey/sign-in": "createSessionWithPasskey",
  "GET /api/v1/session": "getSession",
  "DELETE /api/v1/session": "deleteSession",
  "GET /api/v1/account/sessions": "listAccountSessions",
  "DELETE /api/v1/account/sessions/{id}": "revokeAccountSession",
  "GET /api/v1/people": "listPeople",
  "POST /api/v1/people": "createInvitation",
  "PATCH /api/v1/people/{id}": "updatePerson",
  "DELETE /api/v1/people/{id}": "deletePerson",
  "GET /api/v1/invitations": "listInvitations",
  "DELETE /api/v1/invitations/{id}": "revokeInvitation",
  "GET /api/v1/audit": "listAudit",
  "GET /api/v1/auth/oidc/start": "createOidcSignIn",
  "GET /api/v1/auth/oidc/callback": "recordOidcCallback",
};

/** The people routes that take no credentials (sign-in, an invitation's registration) or only the session cookie. */
export const PUBLIC_OPERATIONS = [
  "GET /api/v1/auth/methods",
  "POST /api/v1/auth/passkey/register/options",
  "POST /api/v1/auth/passkey/register",
  "POST /api/v1/auth/passkey/sign-in/options",
  "POST /api/v1/auth/passkey/sign-in",
  "GET /api/v1/auth/oidc/start",
  "GET /api/v1/auth/oidc/callback",
];
export const SESSION_OPERATIONS = [
  "GET /api/v1/session",
  "DELETE /api/v1/session",
  "GET /api/v1/account/sessions",
  "DELETE /api/v1/account/sessions/{id}",
];

/** The paths the route table does not hold: the collector's and the api worker's own (worker/api/openapi/front-door.ts). */
export const FRONT_DOOR_OPERATION_IDS = {
  "GET /t.js": "getTracker",
  "HEAD /t.js": "headTracker",
  "POST /e": "recordBeacon",
  "OPTIONS /e": "preflightBeacon",
  "POST /s2s": "recordConversions",
  "GET /healthz": "getHealth",
  "GET /api/v1/openapi.json": "getOpenApiDocument",
};

export const OPERATION_IDS: Record<string, string> = { ...ROUTE_OPERATION_IDS, ...FRONT_DOOR_OPERATION_IDS };

/** A document's operations as ["METHOD /path", operation] pairs, in document order. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): [string, any][] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, any]),
  );
}

/** A document's operation ids by "METHOD /path", to compare with OPERATION_IDS. */
export function operationIdsOf(doc: { paths: Record<string, Record<string, any>> }): Record<string, string> {
  return Object.fromEntries(operationsOf(doc).map(([name, op]) => [name, op.operationId]));
}
