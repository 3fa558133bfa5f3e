/**
 * The Keys screen (admin; the app shows it to admin keys only): the active keys, a form to
 * issue one (its secret shown once), revoking, and each key's calls over the last 30 days.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, unwrap, type ApiKey } from "../../api/client";
import { useLoad } from "../../state/load";
import { currentKey, signOut } from "../../state/session";
import { KeyForm, type NewApiKey } from "./form";
import { KeysTable, usageButtonId } from "./list";
import { KeySecret } from "./secret";
import { KeyUsagePanel } from "./usage";
import { Empty, Loaded } from "../../ui/states";

function withoutSecret({ key: _secret, ...rest }: NewApiKey): ApiKey {
  return rest;
}

function KeysBody({ initial }: { initial: ApiKey[] }) {
  const [keys, setKeys] = useState(initial);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [usageOf, setUsageOf] = useState<string | null>(null);
  const [done, setDone] = useState("");
  const [failed, setFailed] = useState<string | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const currentId = currentKey.value?.id ?? "";

  const revoke = async (key: ApiKey) => {
    setDone("");
    setFailed(null);
    try {
      await unwrap(api.DELETE("/api/v1/keys/{id}", { params: { path: { id: key.id } } }));
    } catch (error) {
      setFailed(error instanceof Error ? error.message : String(error));
      return;
    }
    // The tab's own key no longer opens anything: sign out rather than fail on the next call.
    if (key.id === currentId) return signOut();
    setKeys((list) => list.filter((k) => k.id !== key.id));
    if (usageOf === key.id) setUsageOf(null);
    listHeading.current?.focus();
    setDone(`Revoked ${key.name} (${key.prefix}…). It stopped working at once.`);
  };

  const usageKey = keys.find((k) => k.id === usageOf) ?? null;
  return (
    <>
      <div class="screen-head">
        <h1>API keys</h1>
        <button
          type="button"
          class="primary"
          ref={newButton}
          aria-expanded={creating}
          aria-controls="key-form"
          onClick={() => setCreating((open) => !open)}
        >
          New key
        </button>
      </div>
      {created && (
        <KeySecret
          created={created}
          onDone={() => {
            setCreated(null);
            newButton.current?.focus();
          }}
        />
      )}
      {creating && (
        <KeyForm
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            setKeys((list) => [...list, withoutSecret(key)]);
          }}
          onCancel={() => {
            setCreating(false);
            newButton.current?.focus();
          }}
        />
      )}
      <h2 id="key-list-title" tabIndex={-1} ref={listHeading}>
        Active keys
      </h2>
      <p role="status" class="ak-notice">
        {done}
      </p>
      {failed && (
        <div class="failure" role="alert">
          <p>{failed}</p>
        </div>
      )}
      {keys.length === 0 ? (
        <Empty>
          <p>No active keys. Create one with New key.</p>
        </Empty>
      ) : (
        <KeysTable
          keys={keys}
          currentId={currentId}
          usageOf={usageOf}
          onUsage={(key) => setUsageOf((open) => (open === key.id ? null : key.id))}
          onRevoke={revoke}
        />
      )}
      {usageKey && (
        <KeyUsagePanel
          apiKey={usageKey}
          onClose={() => {
            setUsageOf(null);
            document.getElementById(usageButtonId(usageKey))?.focus();
          }}
        />
      )}
    </>
  );
}

export function KeysScreen() {
  useEffect(() => {
    document.title = "Keys · Wren";
  }, []);
  const keys = useLoad(() => unwrap(api.GET("/api/v1/keys")), []);
  if (keys.status === "ready") return <KeysBody initial={keys.data.keys} />;
  return (
    <>
      <div class="screen-head">
        <h1>API keys</h1>
      </div>
      <Loaded load={keys} what="keys">
        {() => null}
      </Loaded>
    </>
  );
}
