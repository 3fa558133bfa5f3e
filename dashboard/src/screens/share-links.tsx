/**
 * "Share links" on a site's settings (docs/dashboard.md "Sharing a dashboard"): a site admin
 * (write:sites on the site) makes a link — with a password, an expiry, embeddable or not —
 * copies it and its iframe snippet (shown once: only the link's hash is kept), and revokes
 * links. Anyone holding a link sees the site's reports read-only, k-filtered like a
 * read:reports key's; nobody else sees this section.
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Schemas } from "../api/client";
import { useLoad } from "../state/load";
import { hasScope } from "../state/session";
import { ConfirmButton } from "../ui/confirm";
import { CopyBlock } from "../ui/copy";
import { Field, FormProblem, useApiForm, valueOf } from "../ui/field";
import { Failure, Loaded } from "../ui/states";
import { formatInstant } from "../ui/time";

type ShareLink = Schemas["ShareLink"];
type CreatedShareLink = Schemas["CreatedShareLink"];

const readShares = (site: string) => unwrap(api.GET("/api/v1/sites/{id}/shares", { params: { path: { id: site } } }));

export function ShareLinks({ site }: { site: string }) {
  if (!hasScope("write:sites")) return null;
  return <ShareLinksSection site={site} />;
}

function ShareLinksSection({ site }: { site: string }) {
  const load = useLoad(() => readShares(site), [site]);
  return (
    <section aria-labelledby="shares-title">
      <h2 id="shares-title">Share links</h2>
      <p class="hint">
        A link opens this site's Overview, Pages, Sources and Goals, read-only, to anyone who has it — no key, no sign-in. Every
        figure passes the same privacy filter as for a read:reports key, so a small group of visitors is never shown.
      </p>
      <Loaded load={load} what="the share links">
        {(data) => <ShareLinksBody site={site} initial={data.shares} />}
      </Loaded>
    </section>
  );
}

function ShareLinksBody({ site, initial }: { site: string; initial: ShareLink[] }) {
  const [links, setLinks] = useState(initial);
  const [made, setMade] = useState<CreatedShareLink | null>(null);
  return (
    <>
      {links.length === 0 ? (
        <p class="shares-none">No share links: nobody without a key can see this site's reports.</p>
      ) : (
        <ul class="shares-list" aria-label="Share links">
          {links.map((link) => (
            <li key={link.id}>
              <code id={`share-${link.id}`}>…/share/{link.token_prefix}…</code> <ShareTraits link={link} />
              <RevokeShare site={site} link={link} onRevoked={() => setLinks(links.filter((l) => l.id !== link.id))} />
            </li>
          ))}
        </ul>
      )}
      {made && (
        <div class="share-made" role="status">
          <p>
            <strong>Copy the link now:</strong> it is not shown again.
          </p>
          <CopyBlock text={made.url} label="Share link" />
          {made.iframe && <CopyBlock text={made.iframe} label="Iframe snippet" />}
        </div>
      )}
      <MakeShare
        site={site}
        onMade={(link) => {
          setMade(link);
          setLinks([...links, link]);
        }}
      />
    </>
  );
}

function ShareTraits({ link }: { link: ShareLink }) {
  const traits = [
    link.password ? "password" : "no password",
    link.expires_at ? `expires ${formatInstant(link.expires_at)}` : "no expiry",
    link.embed ? "embeddable on the site's own pages" : "not embeddable",
  ];
  return <span class="hint">{traits.join(" · ")}</span>;
}

function MakeShare({ site, onMade }: { site: string; onMade: (link: CreatedShareLink) => void }) {
  const [password, setPassword] = useState("");
  const [expires, setExpires] = useState("");
  const [embed, setEmbed] = useState(false);
  const form = useApiForm({
    id: "share-add",
    fields: ["password", "expires_at", "embed"],
    send: () =>
      unwrap(
        api.POST("/api/v1/sites/{id}/shares", {
          params: { path: { id: site } },
          body: {
            ...(password ? { password } : {}),
            // A local date and time, as the browser's control gives it, sent as an instant.
            ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
            embed,
          },
        }),
      ),
    done: (link) => {
      setPassword("");
      setExpires("");
      setEmbed(false);
      onMade(link);
    },
  });
  return (
    <form class="stack shares-add" aria-label="Make a share link" onSubmit={form.onSubmit}>
      <Field
        form={form}
        field="password"
        label="Password (optional)"
        hint="At least 8 characters; asked before the dashboard opens."
      >
        {(props) => (
          <input
            {...props}
            type="password"
            autoComplete="new-password"
            minLength={8}
            maxLength={200}
            value={password}
            onInput={(e) => setPassword(valueOf(e))}
          />
        )}
      </Field>
      <Field form={form} field="expires_at" label="Expires (optional)" hint="After this the link opens nothing.">
        {(props) => <input {...props} type="datetime-local" value={expires} onInput={(e) => setExpires(valueOf(e))} />}
      </Field>
      <div class="field">
        <label>
          <input
            type="checkbox"
            id="share-add-embed"
            checked={embed}
            onChange={(e) => setEmbed((e.target as HTMLInputElement).checked)}
          />{" "}
          Let the site's own pages embed it in an iframe
        </label>
      </div>
      <FormProblem form={form} />
      <div class="row">
        <button type="submit" class="primary" disabled={form.busy}>
          Make a share link
        </button>
      </div>
    </form>
  );
}

/** Revoke, asked in place: the link stops opening at once. */
function RevokeShare({ site, link, onRevoked }: { site: string; link: ShareLink; onRevoked: () => void }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const revoke = () => {
    setProblem(null);
    return unwrap(api.DELETE("/api/v1/sites/{id}/shares/{share}", { params: { path: { id: site, share: link.id } } })).then(
      onRevoked,
      (error: unknown) => setProblem(ApiProblem.from(error)),
    );
  };
  return (
    <>
      <ConfirmButton
        label="Revoke"
        ariaLabel={`Revoke link ${link.token_prefix}`}
        describedBy={`share-${link.id}`}
        question="Revoke this link? Whoever has it sees nothing from now on."
        confirmLabel="Yes, revoke"
        busyLabel="Revoking…"
        onConfirm={revoke}
      />
      {problem && <Failure problem={problem} />}
    </>
  );
}
