/**
 * Sending a file as a request's body with its upload progress: XMLHttpRequest, since fetch
 * reports none. The same credentials as every other call (client.ts), the same problems on a
 * refusal; the answer is typed by the caller from the generated schemas.
 */
import { ApiProblem, credentialHeaders, problemOf } from "./client";

export interface UploadProgress {
  /** Bytes sent so far, and in all. */
  sent: number;
  total: number;
}

export function uploadFile<T>(
  path: string,
  file: Blob,
  contentType: string,
  onProgress: (progress: UploadProgress) => void,
): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", new URL(path, location.origin).toString());
    xhr.withCredentials = true;
    xhr.responseType = "text";
    xhr.setRequestHeader("content-type", contentType);
    for (const [name, value] of Object.entries(credentialHeaders("POST"))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) =>
      onProgress({ sent: event.loaded, total: event.lengthComputable ? event.total : file.size });
    xhr.onerror = () => reject(new ApiProblem(0, "The server cannot be reached. Is `wren start` running?"));
    xhr.onabort = () => reject(new ApiProblem(0, "The upload was stopped."));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve({ status: xhr.status, body: body as T });
      else reject(problemOf(xhr.status, xhr.statusText, body));
    };
    xhr.send(file);
  });
}
