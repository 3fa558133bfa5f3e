/**
 * Passkeys (WebAuthn, @simplewebauthn/server on WebCrypto): registration from an invitation or
 * by a signed-in person, and usernameless sign-in with discoverable credentials. The relying
 * party is WREN_PUBLIC_URL: its hostname is the RP ID, its origin the expected origin.
 *
 * Challenges are single use and live 5 minutes: each ceremony's options store one, and its
 * verification deletes it (`DELETE … RETURNING`) before verifying, so a replayed response —
 * even a valid one — finds no challenge. Signature counters must grow when the authenticator
 * keeps one (the library refuses a counter that does not), against a cloned authenticator.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { now } from "../../lib/clock";
import type { Database } from "../../lib/db";
import { newId } from "../../lib/ids";
import { HttpProblem } from "../../lib/problem";
import { peopleUrl, publicUrl } from "../../lib/public-url";
import { accounts, passkeys, webauthnChallenges } from "../../lib/schema";
import { recordAuditStatement, type AuditEntry } from "../audit";

export const CHALLENGE_TTL_MS = 5 * 60_000;

export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingParty(env: { WREN_PUBLIC_URL?: string | null }): RelyingParty {
  const url = new URL(peopleUrl(publicUrl(env)));
  return { id: url.hostname, origin: url.origin, name: "Wren" };
}

type Purpose = "register" | "sign-in";

async function storeChallenge(
  db: Database,
  input: { challenge: string; purpose: Purpose; invitationId?: string | null; accountId?: string | null },
  at: number,
): Promise<string> {
  const id = newId("chl");
  // Expired challenges of anyone go with each new one: the table stays small without a job.
  await db.batch([
    db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, at)),
    db.insert(webauthnChallenges).values({
      id,
      challenge: input.challenge,
      purpose: input.purpose,
      invitationId: input.invitationId ?? null,
      accountId: input.accountId ?? null,
      expiresAt: at + CHALLENGE_TTL_MS,
    }),
  ]);
  return id;
}

type ChallengeRow = typeof webauthnChallenges.$inferSelect;

/** Takes a challenge out for good (single use); refused when unknown, used, expired or for another ceremony. */
async function consumeChallenge(db: Database, id: string, purpose: Purpose, at: number): Promise<ChallengeRow> {
  const rows = await db
    .delete(webauthnChallenges)
    .where(and(eq(webauthnChallenges.id, id), eq(webauthnChallenges.purpose, purpose), gt(webauthnChallenges.expiresAt, at)))
    .returning();
  if (!rows[0])
    throw new HttpProblem(401, "The passkey challenge is unknown, used or expired; start again.", { field: "challenge_id" });
  return rows[0];
}

export interface Ceremony<O> {
  challengeId: string;
  options: O;
}

/** Options to create a passkey for `account` (a new one from an invitation, or a signed-in one). */
export async function registrationOptions(
  db: Database,
  rp: RelyingParty,
  input: { accountId: string; userName: string; invitationId?: string | null; forExisting: boolean },
  at = now(),
): Promise<Ceremony<PublicKeyCredentialCreationOptionsJSON>> {
  const existing = input.forExisting
    ? await db
        .select({ id: passkeys.id, transports: passkeys.transports })
        .from(passkeys)
        .where(eq(passkeys.accountId, input.accountId))
    : [];
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: input.userName,
    userID: Uint8Array.from(new TextEncoder().encode(input.accountId)),
    attestationType: "none",
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports ?? [] })),
  });
  const challengeId = await storeChallenge(
    db,
    { challenge: options.challenge, purpose: "register", invitationId: input.invitationId ?? null, accountId: input.accountId },
    at,
  );
  return { challengeId, options };
}

export interface VerifiedPasskey {
  accountId: string;
  invitationId: string | null;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
}

/** Verifies a registration response against its (consumed) challenge. */
export async function verifyRegistration(
  db: Database,
  rp: RelyingParty,
  challengeId: string,
  response: RegistrationResponseJSON,
  at = now(),
): Promise<VerifiedPasskey> {
  const challenge = await consumeChallenge(db, challengeId, "register", at);
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch (error) {
    throw new HttpProblem(401, `The passkey did not verify: ${error instanceof Error ? error.message : "invalid"}.`, {
      field: "response",
    });
  }
  if (!verified.verified) throw new HttpProblem(401, "The passkey did not verify.", { field: "response" });
  const { credential } = verified.registrationInfo;
  return {
    accountId: challenge.accountId!,
    invitationId: challenge.invitationId,
    credentialId: credential.id,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: credential.transports ?? [],
  };
}

/** The statement that stores a verified passkey, only once its account exists (for the invitation's batch). */
export function insertPasskeyStatement(db: Database, passkey: VerifiedPasskey, name: string, at: number) {
  return db.run(
    sql`INSERT INTO ${passkeys} (id, account_id, public_key, counter, transports, name, created_at)
        SELECT ${passkey.credentialId}, ${passkey.accountId}, ${Buffer.from(passkey.publicKey)}, ${passkey.counter},
               ${JSON.stringify(passkey.transports)}, ${name}, ${at}
        WHERE EXISTS (SELECT 1 FROM ${accounts} WHERE ${accounts.id} = ${passkey.accountId})`,
  );
}

/** Adds a verified passkey to a signed-in account, with its audit entry, in one batch. */
export async function addPasskey(
  db: Database,
  passkey: VerifiedPasskey,
  name: string,
  audit: AuditEntry,
  at: number,
): Promise<void> {
  await db.batch([insertPasskeyStatement(db, passkey, name, at), recordAuditStatement(db, audit, at)]);
}

export async function signInOptions(
  db: Database,
  rp: RelyingParty,
  at = now(),
): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
  // Usernameless: no allowCredentials, the authenticator offers its discoverable credentials.
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "required" });
  return { challengeId: await storeChallenge(db, { challenge: options.challenge, purpose: "sign-in" }, at), options };
}

/** Verifies a sign-in assertion; the account it signs in. Refused (401) on any mismatch. */
export async function verifySignIn(
  db: Database,
  rp: RelyingParty,
  challengeId: string,
  response: AuthenticationResponseJSON,
  at = now(),
): Promise<{ accountId: string; passkeyId: string }> {
  const challenge = await consumeChallenge(db, challengeId, "sign-in", at);
  const found = (
    await db
      .select({ passkey: passkeys })
      .from(passkeys)
      .innerJoin(accounts, eq(accounts.id, passkeys.accountId))
      .where(and(eq(passkeys.id, response.id), sql`${accounts.disabledAt} IS NULL`))
  )[0];
  if (!found) throw new HttpProblem(401, "This passkey is not registered here.", { field: "response" });
  const { passkey } = found;
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports ?? [],
      },
      requireUserVerification: true,
    });
  } catch (error) {
    throw new HttpProblem(401, `The passkey did not verify: ${error instanceof Error ? error.message : "invalid"}.`, {
      field: "response",
    });
  }
  if (!verified.verified) throw new HttpProblem(401, "The passkey did not verify.", { field: "response" });
  await db
    .update(passkeys)
    .set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: at })
    .where(eq(passkeys.id, passkey.id));
  return { accountId: passkey.accountId, passkeyId: passkey.id };
}
