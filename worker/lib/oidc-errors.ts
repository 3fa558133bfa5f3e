/**
 * What an OIDC sign-in's failure is called in the redirect to the dashboard's sign-in
 * (`?sign_in_error=CODE`), and the sentence the dashboard shows for it: one table, so the
 * worker cannot send a code the dashboard cannot read. Nothing the provider said is ever shown.
 */
export const OIDC_ERRORS = {
  not_configured: "Signing in with an identity provider is not set up on this Wren.",
  state_mismatch: "The sign-in could not be matched to this browser, or was already used. Start again.",
  login_expired: "The sign-in took longer than 10 minutes. Start again.",
  issuer_mismatch: "The answer came from another identity provider than the one configured.",
  provider_refused: "The identity provider did not sign you in.",
  provider_unavailable: "The identity provider could not be reached. Try again later.",
  nonce_mismatch: "The identity provider's answer does not belong to this sign-in.",
  audience_mismatch: "The identity provider's answer was issued to another application.",
  id_token_invalid: "The identity provider's answer could not be verified.",
  unknown_identity: "This account has no access to Wren. Ask an admin for an invitation.",
  invitation_invalid: "This invitation is not valid: it expired, was used or was revoked.",
  account_disabled: "This account was removed from Wren.",
  busy: "Too many sign-ins are under way. Try again in a few minutes.",
} as const;
export type OidcErrorCode = keyof typeof OIDC_ERRORS;

export function isOidcErrorCode(code: string | null | undefined): code is OidcErrorCode {
  return typeof code === "string" && Object.hasOwn(OIDC_ERRORS, code);
}
