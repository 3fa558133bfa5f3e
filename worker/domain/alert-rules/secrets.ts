/**
 * A destination's signing secret: `whsec_` + base64 of HMAC-SHA256(server secret,
 * `alert-destination:ID`), a Standard Webhooks secret of 32 key bytes. Never stored: the api
 * shows it once when the destination is made, the sender recomputes it for every delivery.
 */
import { hmacSha256, serverHmacKey, toBase64 } from "../../lib/crypto";
import { WEBHOOK_SECRET_PREFIX } from "../../lib/webhook-signature";

export async function destinationSecret(serverSecret: string, destinationId: string): Promise<string> {
  return (
    WEBHOOK_SECRET_PREFIX + toBase64(await hmacSha256(await serverHmacKey(serverSecret), `alert-destination:${destinationId}`))
  );
}
