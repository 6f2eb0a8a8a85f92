// Errors in words a person can act on: what happened, and what to do next.

const $ = (id) => document.getElementById(id);

export function explain(error, settings) {
  const message = error?.message ?? String(error);
  const where = settings.baseUrl || "the provider";
  switch (error?.kind) {
    case "authentication":
      return { title: "Authentication failed", detail: `${where} refused the API key${error.status ? ` (HTTP ${error.status})` : ""}. Check the key in the Model settings.\n${message}` };
    case "access_denied":
      return { title: "Access denied", detail: `The key is valid but may not use this model.\n${message}` };
    case "rate_limit":
    case "quota_exceeded":
      return { title: "Rate limited", detail: `The provider is limiting requests, and the retries ran out. Wait a moment and send again.\n${message}` };
    case "network":
      // The agent tells a server that answered without CORS headers from one that did not answer.
      if (/CORS header/.test(message)) return { title: "Blocked by CORS", detail: message };
      return {
        title: "Could not reach the model",
        detail: settings.provider === "openai-compatible" ? `${message}\n\nIs the local server running at ${where}?` : message,
      };
    case "not_found":
      return { title: "Not found", detail: `Check the model name and the base URL.\n${message}` };
    case "closed":
      return { title: "This conversation has ended", detail: "Press New (Sessions) to start another one." };
    case "crashed":
      return { title: "OpenAgent crashed", detail: message };
    default:
      return { title: "Something went wrong", detail: message };
  }
}

export function showError({ title, detail }, retry = false) {
  const box = $("error");
  box.replaceChildren();
  const strong = document.createElement("strong");
  strong.textContent = title;
  box.append(strong, document.createTextNode(detail));
  box.classList.toggle("retry", retry);
  box.hidden = false;
}

export function clearError() {
  $("error").hidden = true;
}
